/**
 * The approval ledger: the MRTR form of parking. An authorizer's `{ ask }` on
 * a modern request holds no call, worker or stream between rounds, only a
 * ticket here (its id sealed into the requestState the client echoes), so
 * the seed's guarantees survive statelessness:
 *
 * - caps per holder, per peer and in total, with the seed's fair eviction,
 *   counted together with legacy parked calls (lib/approval-counts.ts);
 * - an evicted ticket leaves a tombstone until its expiry, so a late retry is
 *   told it was evicted rather than "timed out";
 * - `take` is atomic: of any number of retries presenting one ticket, exactly
 *   one takes it (exactly-once: an approval runs a tool at most once);
 * - expiry needs no timer per ticket: every ticket lives `ttlMs`, so
 *   deadlines arrive in order and one DeadlineQueue timer serves them all.
 *
 * `ApprovalLedger` is the seam a cluster store (Redis, cluster/redis/
 * approval-ledger.ts, through the `approvalLedger` server option)
 * implements; its operations are Observables that emit once. MemoryApprovalLedger does each
 * one synchronously on subscription, in one step.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { defer, of, type Observable, type SchedulerLike } from 'rxjs';
import { DENY_DETAIL } from '../deny-details.js';
import type { ApprovalEvent } from '../events.js';
import type { Logger } from '../logger.js';
import type { ApprovalCaps, ApprovalCounts, ApprovalHold } from '../approval-counts.js';
import { DeadlineQueue, type DeadlineEntry, type Expiring } from '../deadline-queue.js';
import { addToIndex, removeFromIndex } from '../set-index.js';

/** Whom an approval ticket is for: its holder and the fairness key it counts under. */
export interface TicketRequest {
  /** Who may redeem it: the connection (stdio, WebSocket), else the peer or principal. */
  readonly holder: string;
  /** The fairness key the holder belongs to. */
  readonly peer: string;
}

/** An MRTR approval ticket the ledger holds until its retry, its expiry or its eviction. */
export interface ApprovalTicket extends TicketRequest {
  /** 128 random bits, base64url. */
  readonly ticketId: string;
  /** On the server's scheduler. */
  readonly issuedAt: number;
  /** The ticket is gone from this instant on (now >= expiresAt). */
  readonly expiresAt: number;
}

/** The ledger's answer to `admit`: a ticket, or the cap that refused it. */
export type TicketAdmission =
  | { readonly admitted: true; readonly ticket: ApprovalTicket }
  /** A cap refused it; `detail` is the deny detail (lib/deny-details.ts). */
  | { readonly admitted: false; readonly detail: string };

/**
 * Why a ticket could not be taken: evicted (with the deny detail), expired,
 * not here (spent, or never issued here), or the ledger could not be asked
 * (a cluster store's failure: denied with `detail`, never run).
 */
export type TicketMiss =
  | { readonly reason: 'evicted'; readonly detail: string }
  | { readonly reason: 'expired' }
  | { readonly reason: 'unknown' }
  | { readonly reason: 'unavailable'; readonly detail: string };

/** The ledger's answer to `take`: the ticket (to exactly one of concurrent takes), or why not. */
export type TicketTake = { readonly taken: true; readonly ticket: ApprovalTicket } | ({ readonly taken: false } & TicketMiss);

/** The ledger's answer to `reissue`: a fresh ticket in the same slot, or why not. */
export type TicketReissue = { readonly reissued: true; readonly ticket: ApprovalTicket } | ({ readonly reissued: false } & TicketMiss);

/** The store of MRTR approval tickets (the `approvalLedger` option): in memory by default, on Redis in a cluster. Redeems each ticket exactly once. */
export interface ApprovalLedger {
  /** One check-and-insert: a ticket for `request`, after evicting another by the fairness rule if that is its right; else the refusal. */
  admit(request: TicketRequest): Observable<TicketAdmission>;
  /** Removes the ticket and says it was there: of concurrent takes of one ticket, exactly one gets `taken: true`. */
  take(ticketId: string): Observable<TicketTake>;
  /** Swaps an outstanding ticket for a new one in the same slot, with a new id and a fresh expiry (a retry that brought no answer). */
  reissue(ticketId: string): Observable<TicketReissue>;
  /** Frees every ticket `holder` holds (its connection is gone: nobody can redeem them); emits how many. */
  dropHolder(holder: string): Observable<number>;
  /** dropHolder done at once, for a ledger that can (the in-memory one): the server calls it on every connection's exit. */
  dropHolderNow?(holder: string): number;
  /**
   * Tickets this process holds (the in-memory ledger); `server.stats()` reports it as
   * `approvalTickets`. A store shared by several processes leaves it out: its tickets are not this process's.
   */
  outstanding?(): number;
  /**
   * `server.close()`: end what this process holds for the ledger (its tickets and expiry
   * timer in memory; for a shared store, its local bookkeeping only, never the shared tickets
   * another process may redeem), and refuse later admits. Idempotent.
   */
  close?(): void;
  /**
   * Set by a ledger shared by several processes that keeps time on a clock of
   * its own (Redis TIME): it decides expiry, and the expiry sealed into a
   * requestState (on the issuing process's clock) is only a bound, refused
   * once `clockSkewMs` past on the redeeming process's clock. Such a ledger
   * must answer `expired`, never `unknown`, for a ticket that expired (or was
   * evicted and then reached its expiry) for as long as a state sealed for it
   * can still open on any process, so a late retry is the "timed out" deny
   * there as on one process. Unset (the in-memory ledger: one process, one
   * clock): the sealed expiry is exact.
   */
  readonly clockSkewMs?: number;
}

/** What a server hands the `approvalLedger` option's factory (a cluster store): its caps, clock, events and logger. */
export interface ApprovalLedgerSetup {
  /** From maxParkedElicitations, maxParkedElicitationsPerPeer and maxParkedElicitationsTotal. */
  readonly caps: ApprovalCaps;
  /** `approvalTtlMs`. */
  readonly ttlMs: number;
  readonly scheduler: SchedulerLike;
  /** Where the ledger's ApprovalEvents go (the server's events$). */
  readonly report: (event: ApprovalEvent) => void;
  readonly logger: Logger;
}

/** The `approvalLedger` server option: builds the ledger a server uses instead of the in-memory one. */
export type ApprovalLedgerFactory = (setup: ApprovalLedgerSetup) => ApprovalLedger;

export function isApprovalLedger(value: unknown): value is ApprovalLedger {
  const l = value as ApprovalLedger;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof l.admit === 'function' &&
    typeof l.take === 'function' &&
    typeof l.reissue === 'function' &&
    typeof l.dropHolder === 'function'
  );
}

export interface MemoryApprovalLedgerOptions {
  /** Shared with the ParkingLot, so both eras count against one set of caps. */
  readonly counts: ApprovalCounts;
  readonly scheduler: SchedulerLike;
  /** How long a ticket waits for its retry (`approvalTtlMs`). */
  readonly ttlMs: number;
  readonly report?: ((event: ApprovalEvent) => void) | undefined;
  readonly newTicketId?: (() => string) | undefined;
}

export function randomTicketId(): string {
  return randomBytes(16).toString('base64url');
}

class TicketEntry implements Expiring {
  deadline!: DeadlineEntry;

  constructor(
    private readonly ledger: MemoryApprovalLedger,
    public ticket: ApprovalTicket,
    readonly hold: ApprovalHold,
  ) {}

  expire(): void {
    this.ledger.expired(this);
  }
}

interface Tombstone {
  readonly expiresAt: number;
  readonly detail: string;
}

export class MemoryApprovalLedger implements ApprovalLedger {
  private readonly tickets = new Map<string, TicketEntry>();
  /** Evicted tickets until their expiry, oldest eviction first; at most maxTotal of them. */
  private readonly tombstones = new Map<string, Tombstone>();
  private readonly byHolder = new Map<string, Set<TicketEntry>>();
  private readonly deadlines: DeadlineQueue;
  private readonly newTicketId: () => string;
  private readonly tagSalt = randomBytes(16);
  private closed = false;

  constructor(private readonly options: MemoryApprovalLedgerOptions) {
    this.deadlines = new DeadlineQueue(options.scheduler, options.ttlMs);
    this.newTicketId = options.newTicketId ?? randomTicketId;
  }

  admit(request: TicketRequest): Observable<TicketAdmission> {
    return defer(() => of(this.admitNow(request)));
  }

  take(ticketId: string): Observable<TicketTake> {
    return defer(() => of(this.takeNow(ticketId)));
  }

  reissue(ticketId: string): Observable<TicketReissue> {
    return defer(() => of(this.reissueNow(ticketId)));
  }

  dropHolder(holder: string): Observable<number> {
    return defer(() => of(this.dropHolderNow(holder)));
  }

  admitNow(request: TicketRequest): TicketAdmission {
    // A closed server's ticket could never be redeemed, and its expiry would hold a timer again.
    if (this.closed) return { admitted: false, detail: DENY_DETAIL.serverClosing };
    let admitted: TicketEntry | undefined;
    const admission = this.options.counts.admit(request.holder, request.peer, (detail) => {
      if (admitted !== undefined) this.evicted(admitted, detail);
    });
    if (!admission.admitted) return admission;
    const entry = new TicketEntry(this, this.newTicket(request), admission.hold);
    this.insert(entry);
    admitted = entry;
    this.report({ type: 'approval_issued', owner: this.ownerTag(request.holder), outstanding: this.outstanding(request.holder) });
    return { admitted: true, ticket: entry.ticket };
  }

  takeNow(ticketId: string): TicketTake {
    const entry = this.live(ticketId);
    if (!(entry instanceof TicketEntry)) return { taken: false, ...entry };
    this.remove(entry);
    entry.hold.release();
    this.report({ type: 'approval_redeemed', owner: this.ownerTag(entry.ticket.holder) });
    return { taken: true, ticket: entry.ticket };
  }

  reissueNow(ticketId: string): TicketReissue {
    const entry = this.live(ticketId);
    if (!(entry instanceof TicketEntry)) return { reissued: false, ...entry };
    this.remove(entry);
    entry.ticket = this.newTicket(entry.ticket);
    this.insert(entry);
    return { reissued: true, ticket: entry.ticket };
  }

  dropHolderNow(holder: string): number {
    const held = this.byHolder.get(holder);
    if (held === undefined) return 0;
    const entries = [...held];
    for (const entry of entries) {
      this.remove(entry);
      entry.hold.release();
    }
    return entries.length;
  }

  /**
   * The server closing: every ticket goes (its slot freed, its retry then told "unknown" and
   * refused, since admit is), the expiry timer with them, and the tombstones. No event per
   * ticket: nobody is waiting on one, the question simply ends with the server.
   */
  close(): void {
    this.closed = true;
    for (const entry of this.tickets.values()) entry.hold.release();
    this.tickets.clear();
    this.byHolder.clear();
    this.tombstones.clear();
    this.deadlines.clear();
  }

  /** Tickets outstanding, of `holder` or in all. */
  outstanding(holder?: string): number {
    return holder === undefined ? this.tickets.size : (this.byHolder.get(holder)?.size ?? 0);
  }

  /** @internal The DeadlineQueue's call: silence is not consent, the ticket is simply gone. */
  expired(entry: TicketEntry): void {
    if (this.tickets.get(entry.ticket.ticketId) !== entry) return;
    this.remove(entry);
    entry.hold.release();
    this.report({ type: 'approval_expired', owner: this.ownerTag(entry.ticket.holder) });
  }

  /** The ticket, when outstanding and unexpired; else why not. */
  private live(ticketId: string): TicketEntry | TicketMiss {
    const entry = this.tickets.get(ticketId);
    const now = this.options.scheduler.now();
    if (entry === undefined) {
      const tombstone = this.tombstones.get(ticketId);
      if (tombstone !== undefined && now < tombstone.expiresAt) return { reason: 'evicted', detail: tombstone.detail };
      return { reason: 'unknown' };
    }
    // Its deadline is due but not yet run in this instant: expired all the same.
    if (now >= entry.ticket.expiresAt) {
      this.expired(entry);
      return { reason: 'expired' };
    }
    return entry;
  }

  private evicted(entry: TicketEntry, detail: string): void {
    if (this.tickets.get(entry.ticket.ticketId) !== entry) return;
    this.remove(entry);
    this.bury(entry.ticket, detail);
    this.report({ type: 'approval_evicted', owner: this.ownerTag(entry.ticket.holder), detail });
  }

  private bury(ticket: ApprovalTicket, detail: string): void {
    const now = this.options.scheduler.now();
    for (const [id, tombstone] of this.tombstones) {
      if (tombstone.expiresAt > now && this.tombstones.size < this.options.counts.caps.maxTotal) break;
      // Expired, or the oldest past the bound: a late retry then hears "unknown" and is asked again, never let through.
      this.tombstones.delete(id);
    }
    this.tombstones.set(ticket.ticketId, { expiresAt: ticket.expiresAt, detail });
  }

  private newTicket(request: TicketRequest): ApprovalTicket {
    const issuedAt = this.options.scheduler.now();
    return {
      ticketId: this.newTicketId(),
      holder: request.holder,
      peer: request.peer,
      issuedAt,
      expiresAt: issuedAt + this.options.ttlMs,
    };
  }

  private insert(entry: TicketEntry): void {
    this.tickets.set(entry.ticket.ticketId, entry);
    entry.deadline = this.deadlines.add(entry);
    addToIndex(this.byHolder, entry.ticket.holder, entry);
  }

  private remove(entry: TicketEntry): void {
    this.tickets.delete(entry.ticket.ticketId);
    this.deadlines.remove(entry.deadline);
    removeFromIndex(this.byHolder, entry.ticket.holder, entry);
  }

  private ownerTag(holder: string): string {
    return createHmac('sha256', this.tagSalt).update(holder, 'utf8').digest().subarray(0, 8).toString('base64url');
  }

  private report(event: ApprovalEvent): void {
    this.options.report?.(event);
  }
}
