/**
 * RedisApprovalLedger: the MRTR approval ledger (lib/ports/approval-ledger.ts)
 * shared by every node of a deployment, so a ticket issued on one node is
 * redeemed exactly once on any, and the approval caps hold cluster-wide.
 *
 * Same semantics as MemoryApprovalLedger over ApprovalCounts, each operation
 * one Lua script (scripts/ledger-*.ts: check and change in one place):
 * admit purges expired tickets, applies the caps and the fair eviction
 * (tombstone with its deny detail until the victim's expiry, tombstones
 * bounded); take is atomic; reissue keeps the slot; dropHolder frees a
 * holder's tickets. Time is Redis `TIME` inside the scripts (one clock for
 * every node); a ticket's times are handed back translated to this server's
 * clock, as the ApprovalTicket contract says, so on another node the sealed
 * expiry is only a bound, with `clockSkewMs` of allowance, and an expired
 * ticket answers `expired` for a grace after (ledger-clock.ts). Holders and
 * peers are stored as SHA-256 hashes wherever the raw string is not needed;
 * every key has a PX so an abandoned deployment's keys go away.
 *
 * Modern tickets only: legacy parked calls stay per process (a parked call
 * lives with its connection) on the server's own ApprovalCounts.
 *
 * Fails closed: a Redis error, a timeout or a reply not of the script's
 * shape is logged and answered as a deny (`approval store unavailable`),
 * never a run and never an error out of the pipeline.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { of, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import type { ApprovalEvent } from '../../lib/events.js';
import {
  randomTicketId,
  type ApprovalLedger,
  type ApprovalLedgerFactory,
  type ApprovalLedgerSetup,
  type ApprovalTicket,
  type TicketAdmission,
  type TicketReissue,
  type TicketRequest,
  type TicketTake,
} from '../../lib/ports/approval-ledger.js';
import { failClosedCall } from './fail-closed.js';
import type { ClusterKeys } from './keys.js';
import { ledgerTail, resolveClockSkewMs } from './ledger-clock.js';
import { MAX_NAMES_LENGTH, parseAdmitReply, parseDropReply, parseTicketReply, type Times } from './ledger-replies.js';
import type { RedisLink, RedisReply } from './link.js';
import type { LuaScript } from './lua-script.js';
import { LEDGER_ADMIT } from './scripts/ledger-admit.js';
import { LEDGER_DROP } from './scripts/ledger-drop.js';
import { LEDGER_KEY_PARTS, tailArgs } from './scripts/ledger-lua.js';
import { LEDGER_REISSUE } from './scripts/ledger-reissue.js';
import { LEDGER_TAKE } from './scripts/ledger-take.js';

/** Options of `redisApprovalLedger` and `RedisApprovalLedger`: the link, the keys, `timeoutMs` (default 5000) and `clockSkewMs` (default 5000). */
export interface RedisApprovalLedgerOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** Longest one ledger call may wait for Redis before it fails closed; default 5000. */
  readonly timeoutMs?: number | undefined;
  /** Ticket ids; default 128 random bits. */
  readonly newTicketId?: (() => string) | undefined;
  /**
   * How far apart two nodes' clocks may be: a sealed requestState is refused
   * on a node only this long past its expiry (Redis TIME decides before
   * that); default DEFAULT_CLOCK_SKEW_MS (5000), 0 to 600000.
   */
  readonly clockSkewMs?: number | undefined;
}

const DEFAULT_TIMEOUT_MS = 5000;
/** Ticket ids the scripts accept as key fields: what randomTicketId makes, with room for other generators. */
const TICKET_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The `approvalLedger` server option for a deployment: `createServer({ approvalLedger: redisApprovalLedger({ link, keys }) })`. */
export function redisApprovalLedger(options: RedisApprovalLedgerOptions): ApprovalLedgerFactory {
  return (setup) => new RedisApprovalLedger(options, setup);
}

/** base64url SHA-256 of a holder or peer: bounded, and the raw string stays out of every index. */
export function nameHash(kind: 'holder' | 'peer', name: string): string {
  return createHash('sha256').update(`${kind}\u0000${name}`, 'utf8').digest('base64url');
}

/** The MRTR approval ledger on Redis: admit, take, reissue and drop are each one Lua script, so a ticket is redeemed once in the whole deployment; expiry is decided on Redis `TIME`. Fails closed (the deny `approval store unavailable`). */
export class RedisApprovalLedger implements ApprovalLedger {
  readonly clockSkewMs: number;
  private readonly keyList: readonly string[];
  private readonly timeoutMs: number;
  /** Every script's last ARGV: the grace, the lapse cap, the keys' lifetime. */
  private readonly tail: readonly number[];
  private readonly newTicketId: () => string;
  private readonly tagSalt = randomBytes(16);
  /**
   * Holders this node issued tickets to, with when (on this clock) their
   * last one expires: dropHolder runs on every connection's exit, and only
   * these need a round trip. At most `maxHolders`, oldest forgotten first
   * (its tickets then just expire).
   */
  private readonly holders = new Map<string, number>();
  private readonly maxHolders: number;
  private closed = false;

  constructor(
    private readonly options: RedisApprovalLedgerOptions,
    private readonly setup: ApprovalLedgerSetup,
  ) {
    this.keyList = LEDGER_KEY_PARTS.map((part) => options.keys.key('ledger', part));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.clockSkewMs = resolveClockSkewMs(options.clockSkewMs);
    this.tail = tailArgs(ledgerTail({ ttlMs: setup.ttlMs, maxTotal: setup.caps.maxTotal, clockSkewMs: this.clockSkewMs, timeoutMs: this.timeoutMs }));
    this.newTicketId = options.newTicketId ?? randomTicketId;
    this.maxHolders = 4 * setup.caps.maxTotal;
  }

  admit(request: TicketRequest): Observable<TicketAdmission> {
    // This node's server closed: it asks no new question (a retry may still take its ticket on another node).
    if (this.closed) return of({ admitted: false, detail: DENY_DETAIL.serverClosing });
    const names = JSON.stringify([request.holder, request.peer]);
    // Kept beside the ticket in Redis, so bounded: no real holder or peer comes near it (transports cap peers at 256).
    if (names.length > MAX_NAMES_LENGTH) return of({ admitted: false, detail: DENY_DETAIL.tooLargeToPark });
    return this.call(
      'admit',
      () => {
        const ticketId = this.ticketId();
        const { caps, ttlMs } = this.setup;
        const args = [ticketId, nameHash('holder', request.holder), nameHash('peer', request.peer), names];
        return this.run(LEDGER_ADMIT, [...args, caps.maxPerHolder, caps.maxPerPeer, caps.maxTotal, ttlMs]).then((reply) => ({
          ticketId,
          reply: parseAdmitReply(reply),
        }));
      },
      ({ ticketId, reply }): TicketAdmission => {
        this.reportExpired(reply.gone);
        if (reply.kind === 'collision') throw new Error('ticket id collision');
        if (reply.kind === 'refused') return { admitted: false, detail: reply.detail };
        if (reply.victim !== null) this.report({ type: 'approval_evicted', owner: this.ownerTag(reply.victim.hid), detail: reply.victim.detail });
        const ticket = this.ticket(ticketId, request, reply.times);
        this.remember(request.holder, ticket.expiresAt);
        this.report({ type: 'approval_issued', owner: this.ownerTag(nameHash('holder', request.holder)), outstanding: reply.outstanding });
        return { admitted: true, ticket };
      },
      (): TicketAdmission => ({ admitted: false, detail: DENY_DETAIL.ledgerUnavailable }),
    );
  }

  take(ticketId: string): Observable<TicketTake> {
    if (!TICKET_ID.test(ticketId)) return of({ taken: false, reason: 'unknown' });
    return this.call(
      'take',
      () => this.run(LEDGER_TAKE, [ticketId]).then((reply) => parseTicketReply(reply, 'taken')),
      (reply): TicketTake => {
        this.reportExpired(reply.gone);
        switch (reply.kind) {
          case 'held':
            this.report({ type: 'approval_redeemed', owner: this.ownerTag(reply.hid) });
            return { taken: true, ticket: this.ticket(ticketId, reply, reply.times) };
          case 'expired':
            this.report({ type: 'approval_expired', owner: this.ownerTag(reply.hid) });
            return { taken: false, reason: 'expired' };
          case 'lapsed':
            return { taken: false, reason: 'expired' };
          case 'evicted':
            return { taken: false, reason: 'evicted', detail: reply.detail };
          default:
            return { taken: false, reason: 'unknown' };
        }
      },
      (): TicketTake => ({ taken: false, reason: 'unavailable', detail: DENY_DETAIL.ledgerUnavailable }),
    );
  }

  reissue(ticketId: string): Observable<TicketReissue> {
    if (!TICKET_ID.test(ticketId)) return of({ reissued: false, reason: 'unknown' });
    return this.call(
      'reissue',
      () => {
        const fresh = this.ticketId();
        return this.run(LEDGER_REISSUE, [ticketId, fresh, this.setup.ttlMs]).then((reply) => ({
          fresh,
          reply: parseTicketReply(reply, 'reissued'),
        }));
      },
      ({ fresh, reply }): TicketReissue => {
        this.reportExpired(reply.gone);
        switch (reply.kind) {
          case 'held': {
            const ticket = this.ticket(fresh, reply, reply.times);
            this.remember(reply.holder, ticket.expiresAt);
            return { reissued: true, ticket };
          }
          case 'expired':
            this.report({ type: 'approval_expired', owner: this.ownerTag(reply.hid) });
            return { reissued: false, reason: 'expired' };
          case 'lapsed':
            return { reissued: false, reason: 'expired' };
          case 'evicted':
            return { reissued: false, reason: 'evicted', detail: reply.detail };
          case 'unknown':
            return { reissued: false, reason: 'unknown' };
          default:
            throw new Error('ticket id collision');
        }
      },
      (): TicketReissue => ({ reissued: false, reason: 'unavailable', detail: DENY_DETAIL.ledgerUnavailable }),
    );
  }

  dropHolder(holder: string): Observable<number> {
    const until = this.holders.get(holder);
    if (until === undefined) return of(0);
    this.holders.delete(holder);
    if (this.setup.scheduler.now() >= until) return of(0);
    return this.call(
      'dropHolder',
      () => this.run(LEDGER_DROP, [nameHash('holder', holder)]).then(parseDropReply),
      (reply) => {
        this.reportExpired(reply.gone);
        return reply.dropped;
      },
      () => 0,
    );
  }

  /**
   * This node's server closing. The tickets stay in Redis: an HTTP ticket's holder is a peer, who
   * may redeem it on any other node, and each key's PX ends it when nobody does. What goes is
   * this node's own memory of its holders; no timer is left either, since a script call's
   * timeout lives only while its caller is subscribed (the server ends those it started itself).
   */
  close(): void {
    this.closed = true;
    this.holders.clear();
  }

  /** One script call: bounded in time, its reply checked, any failure logged and answered by `failed`. */
  private call<R, T>(op: string, start: () => Promise<R>, handle: (reply: R) => T, failed: () => T): Observable<T> {
    return failClosedCall(start, handle, { ms: this.timeoutMs, scheduler: this.setup.scheduler }, (err) => {
      this.setup.logger.error({ err, op, store: 'redis' }, 'approval ledger failed; the approval is denied (fail closed)');
      return failed();
    });
  }

  /** `args` and the tail every ledger script ends with (scripts/ledger-lua.ts). */
  private run(script: LuaScript, args: ReadonlyArray<string | number>): Promise<RedisReply> {
    return this.options.link.run(script, this.keyList, [...args, ...this.tail]);
  }

  private ticketId(): string {
    const id = this.newTicketId();
    if (!TICKET_ID.test(id)) throw new Error('newTicketId made an id that is not 1-128 base64url characters');
    return id;
  }

  /** A ticket with Redis's times moved onto this server's clock (durations kept, so expiry reads the same on both). */
  private ticket(ticketId: string, names: TicketRequest, times: Times): ApprovalTicket {
    const now = this.setup.scheduler.now();
    return {
      ticketId,
      holder: names.holder,
      peer: names.peer,
      issuedAt: now - (times.now - times.issuedAt),
      expiresAt: now + (times.expiresAt - times.now),
    };
  }

  private remember(holder: string, expiresAt: number): void {
    const now = this.setup.scheduler.now();
    this.holders.delete(holder);
    this.holders.set(holder, expiresAt);
    // Insertion order is expiry order (one ttl for all): forget from the front while expired or past the bound.
    for (const [name, until] of this.holders) {
      if (until > now && this.holders.size <= this.maxHolders) break;
      this.holders.delete(name);
    }
  }

  private reportExpired(gone: readonly string[]): void {
    for (const hid of gone) this.report({ type: 'approval_expired', owner: this.ownerTag(hid) });
  }

  /** Salted per server, as in the memory ledger; over the holder's hash, which is all a purge knows. */
  private ownerTag(hid: string): string {
    return createHmac('sha256', this.tagSalt).update(hid, 'utf8').digest().subarray(0, 8).toString('base64url');
  }

  private report(event: ApprovalEvent): void {
    this.setup.report(event);
  }
}
