/**
 * Ledgers for the Redis approval-ledger tests: a RedisApprovalLedger and a
 * MemoryApprovalLedger given the same caps, ticket ids and requests, each
 * recording its events with owner tags replaced by their order of first
 * appearance (the tags are salted per ledger, so only that can be compared),
 * and an atomic read of the ledger's counts from Redis.
 */
import { asyncScheduler, VirtualTimeScheduler, type SchedulerLike } from 'rxjs';
import { RedisApprovalLedger, type RedisApprovalLedgerOptions } from '../../cluster/redis/approval-ledger.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { LuaScript } from '../../cluster/redis/lua-script.js';
import type { ApprovalEvent } from '../../lib/events.js';
import type { Logger } from '../../lib/logger.js';
import { ApprovalCounts, type ApprovalCaps } from '../../lib/approval-counts.js';
import { MemoryApprovalLedger } from '../../lib/ports/approval-ledger.js';

export function recordingLogger(): { logger: Logger; errors: unknown[] } {
  const errors: unknown[] = [];
  return { errors, logger: { debug() {}, info() {}, warn() {}, error: (obj) => errors.push(obj) } };
}

/** Events with each owner tag named by its order of first appearance: o0, o1, ... */
export class EventLog {
  readonly events: ApprovalEvent[] = [];
  private readonly owners = new Map<string, string>();
  readonly report = (event: ApprovalEvent): void => {
    if ('owner' in event) {
      let name = this.owners.get(event.owner);
      if (name === undefined) this.owners.set(event.owner, (name = `o${this.owners.size}`));
      this.events.push({ ...event, owner: name });
    } else this.events.push(event);
  };
  drain(): ApprovalEvent[] {
    return this.events.splice(0);
  }
}

export interface LedgerPair {
  readonly memory: MemoryApprovalLedger;
  readonly redis: RedisApprovalLedger;
  readonly memoryLog: EventLog;
  readonly redisLog: EventLog;
  /** The id the next ticket of either ledger gets. */
  nextId: string;
}

export function ledgerPair(link: RedisLink, serverId: string, caps: ApprovalCaps, ttlMs: number): LedgerPair {
  const memoryLog = new EventLog();
  const redisLog = new EventLog();
  const pair = { memoryLog, redisLog, nextId: 'unset' } as LedgerPair & { nextId: string };
  // Frozen at 0: nothing expires on this side within a sequence.
  const memory = new MemoryApprovalLedger({
    counts: new ApprovalCounts(caps),
    scheduler: new VirtualTimeScheduler(),
    ttlMs,
    report: memoryLog.report,
    newTicketId: () => pair.nextId,
  });
  const redis = redisLedgerOn(link, serverId, caps, ttlMs, { newTicketId: () => pair.nextId }, redisLog.report);
  return Object.assign(pair, { memory, redis });
}

export function redisLedgerOn(
  link: RedisLink,
  serverId: string,
  caps: ApprovalCaps,
  ttlMs: number,
  options: Partial<RedisApprovalLedgerOptions> = {},
  report: (event: ApprovalEvent) => void = () => {},
  logger: Logger = recordingLogger().logger,
  scheduler: SchedulerLike = asyncScheduler,
): RedisApprovalLedger {
  return new RedisApprovalLedger({ link, keys: clusterKeys(serverId), ...options }, { caps, ttlMs, scheduler, report, logger });
}

const SNAPSHOT = new LuaScript(
  'test-ledger-snapshot',
  "return { redis.call('ZCARD', KEYS[1]), redis.call('HGETALL', KEYS[2]), redis.call('HGETALL', KEYS[3]), redis.call('HLEN', KEYS[4]), redis.call('HLEN', KEYS[5]), redis.call('ZCARD', KEYS[6]) }",
);

export interface LedgerSnapshot {
  readonly total: number;
  readonly perHolder: Record<string, number>;
  readonly perPeer: Record<string, number>;
  readonly records: number;
  readonly tombstones: number;
  readonly expiries: number;
}

function pairs(flat: unknown): Record<string, number> {
  const list = flat as string[];
  const out: Record<string, number> = {};
  for (let i = 0; i < list.length; i += 2) out[list[i]!] = Number(list[i + 1]);
  return out;
}

/** The ledger's counts in one atomic read. */
export async function snapshot(link: RedisLink, serverId: string): Promise<LedgerSnapshot> {
  const keys = clusterKeys(serverId);
  const k = (part: string) => keys.key('ledger', part);
  const r = (await link.run(SNAPSHOT, [k('ord'), k('hc'), k('pc'), k('tk'), k('tomb'), k('exp')], [])) as unknown[];
  return {
    total: r[0] as number,
    perHolder: pairs(r[1]),
    perPeer: pairs(r[2]),
    records: r[3] as number,
    tombstones: r[4] as number,
    expiries: r[5] as number,
  };
}

/** A seeded generator (mulberry32): the same sequence of operations on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
