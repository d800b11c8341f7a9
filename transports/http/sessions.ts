/**
 * The session table: every live session of one HTTP handler, both
 * transports, capped at `maxSessions`. A session is idle while nothing holds
 * it open (no request in progress, no open stream); once idle for
 * `idleTimeoutMs`, on the server's scheduler, it is removed and closed. Any
 * request restarts the idle clock. Removing is closing: the session's
 * `close()` ends its connection to the server.
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
    const entry: Entry<S> = { session, holds: 0, expiry: undefined };
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
    entry.expiry?.unsubscribe();
    entry.expiry = undefined;
    if (entry.holds > 0 || !Number.isFinite(this.options.idleTimeoutMs)) return;
    const id = entry.session.id;
    entry.expiry = this.options.scheduler.schedule(() => {
      if (this.entries.get(id) === entry) this.remove(id);
    }, this.options.idleTimeoutMs);
  }
}
