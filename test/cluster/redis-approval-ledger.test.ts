/**
 * RedisApprovalLedger on a real Redis: the same outcomes as the in-memory
 * ledger for random sequences of admit / take / reissue / dropHolder
 * (differential, seeded), exactly one winner of concurrent takes from three
 * connections, caps that hold under a concurrent flood (read atomically from
 * Redis), expiry on Redis's clock (an expired ticket told `expired` for
 * the grace), and the same on a 3-node Redis Cluster.
 */
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { nameHash, type RedisApprovalLedger } from '../../cluster/redis/approval-ledger.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import type { ApprovalCaps } from '../../lib/approval-counts.js';
import type { ApprovalTicket, TicketAdmission, TicketReissue, TicketTake } from '../../lib/ports/approval-ledger.js';
import { startRedisTopology, type RedisTopology } from '../helpers/redis-server.js';
import { EventLog, ledgerPair, redisLedgerOn, seeded, snapshot } from './ledger-fixture.js';

const HOUR = 3_600_000;
/** Holders and the peer each belongs to; the last is an HTTP-style holder that is its own peer. */
const HOLDERS: ReadonlyArray<readonly [string, string]> = [
  ['h0', 'p0'], ['h1', 'p0'], ['h2', 'p0'], ['h3', 'p1'], ['h4', 'p1'], ['h5', 'p2'], ['h6', 'p2'], ['addr:10.0.0.9', 'addr:10.0.0.9'],
];

const ticket = (t: ApprovalTicket) => ({ id: t.ticketId, holder: t.holder, peer: t.peer, lifetime: t.expiresAt - t.issuedAt });
const admission = (a: TicketAdmission) => (a.admitted ? { admitted: ticket(a.ticket) } : a);
const taking = (t: TicketTake) => (t.taken ? { taken: ticket(t.ticket) } : t);
const reissuing = (r: TicketReissue) => (r.reissued ? { reissued: ticket(r.ticket) } : r);

let single: RedisTopology | undefined;
let links: RedisLink[] = [];

beforeAll(async () => {
  single = await startRedisTopology(false);
  links = await single.links(3);
}, 30_000);

afterAll(() => single?.stop());

/** Runs `ops` random operations on both ledgers, asserting equal outcomes and events at each step. */
async function differential(link: RedisLink, seed: number, ops: number): Promise<{ evictions: number; refusals: number; taken: number }> {
  const rnd = seeded(seed);
  const maxTotal = 3 + Math.floor(rnd() * 5);
  const maxPerHolder = 1 + Math.floor(rnd() * Math.min(3, maxTotal));
  const maxPerPeer = maxPerHolder + Math.floor(rnd() * (maxTotal - maxPerHolder + 1));
  const caps: ApprovalCaps = { maxPerHolder, maxPerPeer, maxTotal };
  const serverId = `diff-${seed}-${Date.now()}`;
  const pair = ledgerPair(link, serverId, caps, HOUR);
  const ids = ['never-issued'];
  const stats = { evictions: 0, refusals: 0, taken: 0 };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  for (let i = 0; i < ops; i += 1) {
    pair.nextId = `s${seed}o${i}`;
    const roll = rnd();
    const [holder, peer] = pick(HOLDERS);
    const id = pick(ids);
    let step: string;
    let memory: unknown;
    let redis: unknown;
    if (roll < 0.5) {
      step = `admit ${holder}/${peer}`;
      memory = admission(pair.memory.admitNow({ holder, peer }));
      redis = admission(await firstValueFrom(pair.redis.admit({ holder, peer })));
      ids.push(pair.nextId);
    } else if (roll < 0.75) {
      step = `take ${id}`;
      memory = taking(pair.memory.takeNow(id));
      redis = taking(await firstValueFrom(pair.redis.take(id)));
    } else if (roll < 0.9) {
      step = `reissue ${id}`;
      memory = reissuing(pair.memory.reissueNow(id));
      redis = reissuing(await firstValueFrom(pair.redis.reissue(id)));
      ids.push(pair.nextId);
    } else {
      step = `dropHolder ${holder}`;
      memory = pair.memory.dropHolderNow(holder);
      redis = await firstValueFrom(pair.redis.dropHolder(holder));
    }
    const where = `seed ${seed}, caps ${JSON.stringify(caps)}, op ${i}: ${step}`;
    expect(redis, where).toEqual(memory);
    const events = pair.memoryLog.drain();
    expect(pair.redisLog.drain(), where).toEqual(events);
    stats.evictions += events.filter((e) => e.type === 'approval_evicted').length;
    stats.refusals += (memory as { admitted?: boolean }).admitted === false ? 1 : 0;
    stats.taken += (memory as { taken?: unknown }).taken !== undefined && (memory as { taken: unknown }).taken !== false ? 1 : 0;
  }
  const state = await snapshot(link, serverId);
  expect(state.total).toBe(pair.memory.outstanding());
  for (const [holder] of HOLDERS) expect(state.perHolder[nameHash('holder', holder)] ?? 0).toBe(pair.memory.outstanding(holder));
  expect(state.records).toBe(state.total);
  expect(state.tombstones).toBeLessThanOrEqual(maxTotal);
  return stats;
}

describe('the same outcomes as MemoryApprovalLedger', () => {
  test('24 seeded random sequences of 80 operations: admissions, refusals, evictions (victim and detail), takes, reissues, drops, events', async () => {
    const totals = { evictions: 0, refusals: 0, taken: 0 };
    for (let seed = 1; seed <= 24; seed += 1) {
      const stats = await differential(links[0]!, seed, 80);
      totals.evictions += stats.evictions;
      totals.refusals += stats.refusals;
      totals.taken += stats.taken;
    }
    // The sequences do reach the interesting cases, not only the happy path.
    expect(totals.evictions).toBeGreaterThan(20);
    expect(totals.refusals).toBeGreaterThan(20);
    expect(totals.taken).toBeGreaterThan(20);
  }, 60_000);
});

describe('exactly once across connections', () => {
  test('50 rounds: six takes of one ticket racing over three connections, exactly one wins', async () => {
    const serverId = `race-${Date.now()}`;
    const caps = { maxPerHolder: 4, maxPerPeer: 8, maxTotal: 16 };
    const logs = links.map(() => new EventLog());
    const ledgers = links.map((link, i) => redisLedgerOn(link, serverId, caps, HOUR, {}, logs[i]!.report));
    for (let round = 0; round < 50; round += 1) {
      const admitted = await firstValueFrom(ledgers[round % 3]!.admit({ holder: 'alice', peer: 'addr:1' }));
      if (!admitted.admitted) throw new Error('not admitted');
      const takes = await Promise.all([...ledgers, ...ledgers].map((ledger) => firstValueFrom(ledger.take(admitted.ticket.ticketId))));
      expect(takes.filter((t) => t.taken)).toHaveLength(1);
      expect(takes.filter((t) => !t.taken)).toEqual(Array(5).fill({ taken: false, reason: 'unknown' }));
    }
    expect(logs.flatMap((log) => log.events).filter((e) => e.type === 'approval_redeemed')).toHaveLength(50);
    expect((await snapshot(links[0]!, serverId)).total).toBe(0);
  });

  test('a take racing a reissue of one ticket: never both', async () => {
    const serverId = `race-reissue-${Date.now()}`;
    const ledgers = links.map((link) => redisLedgerOn(link, serverId, { maxPerHolder: 4, maxPerPeer: 8, maxTotal: 16 }, HOUR));
    for (let round = 0; round < 30; round += 1) {
      const admitted = await firstValueFrom(ledgers[0]!.admit({ holder: 'bob', peer: 'addr:2' }));
      if (!admitted.admitted) throw new Error('not admitted');
      const id = admitted.ticket.ticketId;
      const [take, reissue] = await Promise.all([firstValueFrom(ledgers[1]!.take(id)), firstValueFrom(ledgers[2]!.reissue(id))]);
      expect([take.taken, reissue.reissued].filter(Boolean)).toHaveLength(1);
      if (reissue.reissued) expect((await firstValueFrom(ledgers[0]!.take(reissue.ticket.ticketId))).taken).toBe(true);
    }
    expect((await snapshot(links[0]!, serverId)).total).toBe(0);
  });
});

describe('caps hold cluster-wide', () => {
  test('a concurrent flood of admits and takes from three connections never holds more than the caps', async () => {
    const serverId = `flood-${Date.now()}`;
    const caps = { maxPerHolder: 3, maxPerPeer: 6, maxTotal: 10 };
    const ledgers = links.map((link) => redisLedgerOn(link, serverId, caps, HOUR));
    const rnd = seeded(99);
    const violations: string[] = [];
    let samples = 0;
    let flooding = true;
    const watcher = (async () => {
      while (flooding && samples < 2000) {
        const s = await snapshot(links[0]!, serverId);
        samples += 1;
        const holders = Object.values(s.perHolder);
        const peers = Object.values(s.perPeer);
        if (s.total > caps.maxTotal || holders.some((n) => n > caps.maxPerHolder) || peers.some((n) => n > caps.maxPerPeer)) {
          violations.push(JSON.stringify(s));
        }
        if (holders.reduce((a, b) => a + b, 0) !== s.total || peers.reduce((a, b) => a + b, 0) !== s.total) violations.push(`counts drift ${JSON.stringify(s)}`);
      }
    })();
    const admitted: string[] = [];
    // Two waves from all three connections at once: admits with takes interleaved, then admits only (which must leave it full).
    const wave = (takes: boolean) =>
      Promise.all(
        ledgers.map(async (ledger, node) => {
          const batch = Array.from({ length: 80 }, (_, i) => {
            const holder = `n${node}h${Math.floor(rnd() * 12)}`;
            return firstValueFrom(ledger.admit({ holder, peer: `peer${holder.length % 2}${Math.floor(rnd() * 3)}` })).then(async (a) => {
              if (!a.admitted) return;
              admitted.push(a.ticket.ticketId);
              if (takes && i % 3 === 0) await firstValueFrom(ledgers[(node + 1) % 3]!.take(a.ticket.ticketId));
            });
          });
          await Promise.all(batch);
        }),
      );
    await wave(true);
    await wave(false);
    flooding = false;
    await watcher;
    expect(violations).toEqual([]);
    expect(samples).toBeGreaterThan(0);
    expect(admitted.length).toBeGreaterThan(2 * caps.maxTotal);
    // The flood did fill the ledger, so the caps (and the fair eviction) were what held it.
    const end = await snapshot(links[0]!, serverId);
    expect(end.total).toBe(caps.maxTotal);
    expect(end.records).toBe(end.total);
    expect(end.expiries).toBe(end.total);
    expect(end.tombstones).toBeLessThanOrEqual(caps.maxTotal);
  }, 30_000);
});

describe('expiry on Redis TIME', () => {
  /** No allowance for skew and a 400 ms Redis timeout: an expired ticket is told `expired` for 2 x 400 ms (ledger-clock.ts). */
  const SHORT_GRACE = { clockSkewMs: 0, timeoutMs: 400 };
  const GRACE_MS = 800;

  test('a ticket past its ttl: take says expired, a purge frees its slot; a purged one is still expired for the grace, then unknown', async () => {
    const serverId = `expiry-${Date.now()}`;
    const log = new EventLog();
    const ledger = redisLedgerOn(links[0]!, serverId, { maxPerHolder: 1, maxPerPeer: 2, maxTotal: 2 }, 150, SHORT_GRACE, log.report);
    const first = await firstValueFrom(ledger.admit({ holder: 'a', peer: 'p' }));
    const second = await firstValueFrom(ledger.admit({ holder: 'b', peer: 'p' }));
    if (!first.admitted || !second.admitted) throw new Error('not admitted');
    expect(await firstValueFrom(ledger.admit({ holder: 'a', peer: 'p' }))).toEqual({ admitted: false, detail: 'too many elicitations pending' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    log.drain();
    expect(await firstValueFrom(ledger.take(first.ticket.ticketId))).toEqual({ taken: false, reason: 'expired' });
    // That take purged the other one too: its slot is free, each expiry reported once.
    expect(log.drain().map((e) => e.type)).toEqual(['approval_expired', 'approval_expired']);
    expect((await snapshot(links[0]!, serverId)).total).toBe(0);
    // A late retry of either, within the grace, is still told expired (so "timed out"), and nothing is reported again.
    expect(await firstValueFrom(ledger.reissue(second.ticket.ticketId))).toEqual({ reissued: false, reason: 'expired' });
    expect(await firstValueFrom(ledger.take(first.ticket.ticketId))).toEqual({ taken: false, reason: 'expired' });
    expect(log.drain()).toEqual([]);
    const lapsed = clusterKeys(serverId).key('ledger', 'lapsed');
    expect(await links[0]!.command(lapsed, ['PTTL', lapsed])).toBeGreaterThan(0);
    expect((await firstValueFrom(ledger.admit({ holder: 'a', peer: 'p' }))).admitted).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
    expect(await firstValueFrom(ledger.reissue(second.ticket.ticketId))).toEqual({ reissued: false, reason: 'unknown' });
    expect(await firstValueFrom(ledger.take(first.ticket.ticketId))).toEqual({ taken: false, reason: 'unknown' });
  });

  test('a tombstone tells "evicted" until the victim would have expired, then expired for the grace, then unknown', async () => {
    const serverId = `tomb-${Date.now()}`;
    const ledger = redisLedgerOn(links[0]!, serverId, { maxPerHolder: 2, maxPerPeer: 2, maxTotal: 2 }, 200, SHORT_GRACE);
    const victim = await firstValueFrom(ledger.admit({ holder: 'hog', peer: 'p1' }));
    await firstValueFrom(ledger.admit({ holder: 'hog', peer: 'p1' }));
    const newcomer = await firstValueFrom(ledger.admit({ holder: 'new', peer: 'p2' }));
    if (!victim.admitted || !newcomer.admitted) throw new Error('not admitted');
    const evicted = { taken: false, reason: 'evicted', detail: 'too many elicitations pending on this server' };
    expect(await firstValueFrom(ledger.take(victim.ticket.ticketId))).toEqual(evicted);
    expect(await firstValueFrom(ledger.take(victim.ticket.ticketId))).toEqual(evicted);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await firstValueFrom(ledger.take(victim.ticket.ticketId))).toEqual({ taken: false, reason: 'expired' });
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS));
    expect(await firstValueFrom(ledger.take(victim.ticket.ticketId))).toEqual({ taken: false, reason: 'unknown' });
  });

  test('every key the ledger writes has a PX, so an abandoned deployment leaves nothing', async () => {
    const serverId = `ttl-${Date.now()}`;
    const ledger = redisLedgerOn(links[0]!, serverId, { maxPerHolder: 1, maxPerPeer: 1, maxTotal: 1 }, 1000);
    const a = await firstValueFrom(ledger.admit({ holder: 'x', peer: 'p' }));
    await firstValueFrom(ledger.admit({ holder: 'y', peer: 'q' }));
    if (!a.admitted) throw new Error('not admitted');
    const keys = (await links[0]!.command('x', ['KEYS', `${clusterKeys(serverId).tag}*`])) as string[];
    expect(keys.length).toBeGreaterThanOrEqual(8);
    // Two ttls, the default grace (2 x clockSkewMs 5000 + 2 x timeoutMs 5000) and a minute.
    const keepMs = 2 * 1000 + 20_000 + 60_000;
    for (const key of keys) {
      const ttl = (await links[0]!.command(key, ['PTTL', key])) as number;
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(keepMs);
    }
  });
});

describe('on a 3-node Redis Cluster (every key in one slot)', () => {
  let cluster: RedisTopology | undefined;
  let clusterLinks: RedisLink[] = [];
  beforeAll(async () => {
    cluster = await startRedisTopology(true);
    clusterLinks = await cluster.links(3);
  }, 60_000);
  afterAll(() => cluster?.stop());

  test('the differential sequences and the take race run unchanged', async () => {
    for (let seed = 101; seed <= 104; seed += 1) await differential(clusterLinks[0]!, seed, 60);
    const serverId = `cluster-race-${Date.now()}`;
    const ledgers: RedisApprovalLedger[] = clusterLinks.map((link) => redisLedgerOn(link, serverId, { maxPerHolder: 4, maxPerPeer: 8, maxTotal: 16 }, HOUR));
    for (let round = 0; round < 20; round += 1) {
      const admitted = await firstValueFrom(ledgers[round % 3]!.admit({ holder: 'carol', peer: 'addr:3' }));
      if (!admitted.admitted) throw new Error('not admitted');
      const takes = await Promise.all(ledgers.map((ledger) => firstValueFrom(ledger.take(admitted.ticket.ticketId))));
      expect(takes.filter((t) => t.taken)).toHaveLength(1);
    }
  }, 60_000);
});
