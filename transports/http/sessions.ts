/**
 * The session table: every live session of one HTTP handler, both
 * transports, capped at `maxSessions`. A session is idle while nothing holds
 * it open (no request in progress, no open stream); once idle for
 * `idleTimeoutMs`, on the server's scheduler, it is removed and closed. Any
 * request restarts the idle clock. Removing is closing: the session's
 * `close()` ends its connection to the server.
 *
 * Restarting the clock only notes the time: each session has at most one
 * timer pending, which on firing either expires the session or waits out
 * the rest of its idle time, so a busy session costs no timer per request.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

export interface TableSession {
  readonly id: string;
  close(): void;
}

export interface SessionTableOptions {
  readonly maxSessions: number;
  readonly idleTimeoutMs: number;
  readonly scheduler: SchedulerLike;
}

interface Entry<S> {
  readonly session: S;
  holds: number;
  /** When the session last became idle or was last touched (scheduler time). */
  idleSince: number;
  /** The one pending idle check, if any. */
  expiry: Subscription | undefined;
}

export class SessionTable<S extends TableSession> {
  private readonly entries = new Map<string, Entry<S>>();

  constructor(private readonly options: SessionTableOptions) {}

  get size(): number {
    return this.entries.size;
  }

  get full(): boolean {
    return this.entries.size >= this.options.maxSessions;
  }

  /** Adds a session (the caller checked `full`); its idle clock starts now. */
  add(session: S): void {
    if (this.full) throw new Error('session table is full');
    const entry: Entry<S> = { session, holds: 0, idleSince: 0, expiry: undefined };
    this.entries.set(session.id, entry);
    this.restartIdleClock(entry);
  }

  get(id: string): S | undefined {
    return this.entries.get(id)?.session;
  }

  /** A request arrived: the idle clock starts over. */
  touch(id: string): void {
    const entry = this.entries.get(id);
    if (entry !== undefined) this.restartIdleClock(entry);
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
    entry.expiry?.unsubscribe();
    entry.session.close();
    return true;
  }

  closeAll(): void {
    for (const id of [...this.entries.keys()]) this.remove(id);
  }

  private restartIdleClock(entry: Entry<S>): void {
    if (!Number.isFinite(this.options.idleTimeoutMs)) return;
    entry.idleSince = this.options.scheduler.now();
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
