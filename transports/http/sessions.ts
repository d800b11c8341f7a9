/**
 * The session table: every live session of one HTTP handler, both
 * transports, capped at `maxSessions`, each owner at `maxSessionsPerPeer`.
 * A session's owner is the owner key of the request that opened it
 * (lib/auth/owner-key.ts, the rule every other share counts by): its
 * principal when authenticated, else its peer (the address, or a trusted
 * proxy header). So two principals behind one address hold a share each,
 * and neither can make room from the other's sessions as if they were its own.
 * The table only compares keys; the callers make them.
 * A session is idle while nothing holds it open (no request in progress, no
 * open stream); once idle for `idleTimeoutMs`, on the server's scheduler, it
 * is removed and closed. Any request restarts the idle clock. Removing is
 * closing: the session's `close()` ends its connection to the server.
 *
 * A full table makes room instead of refusing (`admit`), fairly:
 * - an owner at its share makes room from its own sessions only, never
 *   another owner's: its least valuable one that nothing holds open goes
 *   (if every one is busy, the new one is refused);
 * - on a full table, an owner holding fewer sessions than the owner holding
 *   the most takes the place of one of that owner's sessions, even a busy
 *   one (so sessions kept busy cannot hold the table); an owner holding the
 *   most itself gives up one of its own that nothing holds open;
 * - only when neither applies is the new session refused (503).
 * The least valuable session is, in order: one nothing holds open before a
 * busy one, one never used after it was opened (no request after its
 * initialize; on legacy SSE, no POST) before a used one, then the one idle
 * longest. Every eviction is reported through `onEvict`.
 *
 * Restarting the clock only notes the time: each session has at most one
 * timer pending, which on firing either expires the session or waits out
 * the rest of its idle time, so a busy session costs no timer per request.
 * The eviction scans are linear, and run only when a table or share is full.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

export interface TableSession {
  readonly id: string;
  close(): void;
}

/**
 * What is logged of an eviction. `peer` and `forPeer` hold owner keys: the
 * address, as always, for an unauthenticated caller, `principal:<key>` for an
 * authenticated one; the field names stay so what reads the log keeps working.
 */
export interface SessionEviction {
  readonly sessionId: string;
  /** The owner of the evicted session. */
  readonly peer: string;
  /** The owner whose new session took its place. */
  readonly forPeer: string;
  readonly reason: 'peer-share' | 'table-full';
  readonly used: boolean;
  readonly busy: boolean;
  readonly idleMs: number;
}

export interface SessionTableOptions {
  readonly maxSessions: number;
  /** One owner's share (the HTTP option keeps its name, `maxSessionsPerPeer`). */
  readonly maxSessionsPerPeer: number;
  readonly idleTimeoutMs: number;
  readonly scheduler: SchedulerLike;
  readonly onEvict?: (eviction: SessionEviction) => void;
}

export type Admission<S> = { readonly session: S } | { readonly refused: string };

interface Entry<S> {
  readonly session: S;
  readonly owner: string;
  /** A request named the session after the one that opened it. */
  used: boolean;
  holds: number;
  /** When the session last became idle or was last touched (scheduler time). */
  idleSince: number;
  /** The one pending idle check, if any. */
  expiry: Subscription | undefined;
}

export class SessionTable<S extends TableSession> {
  private readonly entries = new Map<string, Entry<S>>();
  private readonly byOwner = new Map<string, Set<Entry<S>>>();

  constructor(private readonly options: SessionTableOptions) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Makes room for one more session of `owner` (an ownerKey) by the policy
   * above, then creates and adds it, in one synchronous step; or says why not.
   */
  admit(owner: string, create: () => S): Admission<S> {
    const own = this.byOwner.get(owner);
    const ownCount = own?.size ?? 0;
    if (ownCount >= this.options.maxSessionsPerPeer) {
      const victim = this.leastValuable(own!, false);
      if (victim === undefined) {
        return { refused: this.full ? this.fullRefusal() : `this client holds its share of ${this.options.maxSessionsPerPeer} sessions, all in use; end one first` };
      }
      this.evict(victim, owner, 'peer-share');
    } else if (this.full) {
      const victim = this.fairVictim(owner, ownCount);
      if (victim === undefined) return { refused: this.fullRefusal() };
      this.evict(victim, owner, 'table-full');
    }
    const session = create();
    const entry: Entry<S> = { session, owner, used: false, holds: 0, idleSince: 0, expiry: undefined };
    this.entries.set(session.id, entry);
    let ownerEntries = this.byOwner.get(owner);
    if (ownerEntries === undefined) this.byOwner.set(owner, (ownerEntries = new Set()));
    ownerEntries.add(entry);
    this.restartIdleClock(entry);
    return { session };
  }

  get(id: string): S | undefined {
    return this.entries.get(id)?.session;
  }

  /** A request named the session: it is in use, and its idle clock starts over. */
  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    entry.used = true;
    this.restartIdleClock(entry);
  }

  /** Holds the session open (a request in progress, a stream); the returned release is idempotent. */
  hold(id: string): () => void {
    const entry = this.entries.get(id);
    if (entry === undefined) return () => {};
    entry.holds += 1;
    this.restartIdleClock(entry);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      entry.holds -= 1;
      if (this.entries.get(id) === entry) this.restartIdleClock(entry);
    };
  }

  /** Removes and closes a session; false when it was not there. */
  remove(id: string): boolean {
    const entry = this.entries.get(id);
    if (entry === undefined) return false;
    this.entries.delete(id);
    const ownerEntries = this.byOwner.get(entry.owner)!;
    ownerEntries.delete(entry);
    if (ownerEntries.size === 0) this.byOwner.delete(entry.owner);
    entry.expiry?.unsubscribe();
    entry.session.close();
    return true;
  }

  closeAll(): void {
    for (const id of [...this.entries.keys()]) this.remove(id);
  }

  private get full(): boolean {
    return this.entries.size >= this.options.maxSessions;
  }

  private fullRefusal(): string {
    return `the server holds its maximum of ${this.options.maxSessions} sessions, all in use; try again later`;
  }

  /** On a full table: the least valuable session of the owners holding the most, if they hold more than `owner`; else `owner`'s own idle one. */
  private fairVictim(owner: string, ownCount: number): Entry<S> | undefined {
    let most = 0;
    for (const ownerEntries of this.byOwner.values()) most = Math.max(most, ownerEntries.size);
    if (most <= ownCount) return this.leastValuable(this.byOwner.get(owner) ?? [], false);
    let victim: Entry<S> | undefined;
    for (const ownerEntries of this.byOwner.values()) {
      if (ownerEntries.size !== most) continue;
      const candidate = this.leastValuable(ownerEntries, true);
      if (candidate !== undefined && (victim === undefined || this.rank(candidate, victim) < 0)) victim = candidate;
    }
    return victim;
  }

  private leastValuable(entries: Iterable<Entry<S>>, evenBusy: boolean): Entry<S> | undefined {
    let victim: Entry<S> | undefined;
    for (const entry of entries) {
      if (!evenBusy && entry.holds > 0) continue;
      if (victim === undefined || this.rank(entry, victim) < 0) victim = entry;
    }
    return victim;
  }

  /** Negative when `a` should go before `b`: idle before busy, never used before used, then idle longest. */
  private rank(a: Entry<S>, b: Entry<S>): number {
    if ((a.holds > 0) !== (b.holds > 0)) return a.holds > 0 ? 1 : -1;
    if (a.used !== b.used) return a.used ? 1 : -1;
    return a.idleSince - b.idleSince;
  }

  private evict(entry: Entry<S>, forOwner: string, reason: SessionEviction['reason']): void {
    this.options.onEvict?.({
      sessionId: entry.session.id,
      peer: entry.owner,
      forPeer: forOwner,
      reason,
      used: entry.used,
      busy: entry.holds > 0,
      idleMs: this.options.scheduler.now() - entry.idleSince,
    });
    this.remove(entry.session.id);
  }

  private restartIdleClock(entry: Entry<S>): void {
    entry.idleSince = this.options.scheduler.now();
    if (!Number.isFinite(this.options.idleTimeoutMs)) return;
    if (entry.holds > 0 || entry.expiry !== undefined) return;
    this.checkIdleAfter(entry, this.options.idleTimeoutMs);
  }

  private checkIdleAfter(entry: Entry<S>, delayMs: number): void {
    entry.expiry = this.options.scheduler.schedule(() => {
      entry.expiry = undefined;
      if (this.entries.get(entry.session.id) !== entry || entry.holds > 0) return; // gone, or held: the release restarts the clock
      const left = entry.idleSince + this.options.idleTimeoutMs - this.options.scheduler.now();
      if (left > 0) this.checkIdleAfter(entry, left);
      else this.remove(entry.session.id);
    }, delayMs);
  }
}
