/**
 * The event store: what streamable HTTP keeps so a client that lost a stream
 * can resume it with `Last-Event-ID`. Every SSE event on a session's streams
 * is appended here as it is sent (or would have been sent, to a stream whose
 * connection dropped); the store mints its id, unique within the session
 * and naming its stream, so a replay never crosses into another stream.
 *
 * `InMemoryEventStore` is bounded three ways: events per session, events in
 * total, and bytes in total; the oldest go first. A cursor that was evicted
 * cannot be resumed (replayAfter answers undefined): the client lost what
 * was between, and the transport treats it as a new stream.
 */

export interface StoredEvent {
  readonly id: string;
  /** The serialized JSON-RPC message, as sent in the event's `data`. */
  readonly data: string;
}

export interface Replay {
  /** The stream the cursor belongs to. */
  readonly streamId: string;
  /** Its events after the cursor, oldest first. */
  readonly events: readonly StoredEvent[];
}

export interface EventStore {
  /**
   * Records one event of `streamId` in `sessionId` and returns its id. `null`
   * data is a cursor only (a stream's priming event): resumable, never replayed.
   */
  append(sessionId: string, streamId: string, data: string | null): string;
  /** The events after `lastEventId` on its stream; undefined when the id is unknown or evicted. */
  replayAfter(sessionId: string, lastEventId: string): Replay | undefined;
  /** Forgets a session's events (the session ended). */
  deleteSession(sessionId: string): void;
}

export interface InMemoryEventStoreOptions {
  /** Default 512. */
  readonly maxEventsPerSession?: number;
  /** Default 16 384. */
  readonly maxEvents?: number;
  /** Default 64 MiB (counting each event's data length). */
  readonly maxBytes?: number;
}

interface Entry {
  readonly sessionId: string;
  readonly streamId: string;
  readonly id: string;
  readonly data: string | null;
}

interface SessionLog {
  nextSeq: number;
  /** Insertion-ordered: the first key is the oldest. */
  readonly entries: Map<string, Entry>;
}

export class InMemoryEventStore implements EventStore {
  private readonly maxEventsPerSession: number;
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly sessions = new Map<string, SessionLog>();
  /** Every entry across sessions, insertion-ordered, for the total bounds. */
  private readonly all = new Set<Entry>();
  private bytes = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerSession = options.maxEventsPerSession ?? 512;
    this.maxEvents = options.maxEvents ?? 16_384;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  append(sessionId: string, streamId: string, data: string | null): string {
    let log = this.sessions.get(sessionId);
    if (log === undefined) {
      log = { nextSeq: 1, entries: new Map() };
      this.sessions.set(sessionId, log);
    }
    const id = `${streamId}_${log.nextSeq++}`;
    const entry: Entry = { sessionId, streamId, id, data };
    log.entries.set(id, entry);
    this.all.add(entry);
    this.bytes += data?.length ?? 0;
    while (log.entries.size > this.maxEventsPerSession) this.evict(log.entries.values().next().value as Entry);
    while (this.all.size > this.maxEvents || (this.bytes > this.maxBytes && this.all.size > 0)) {
      this.evict(this.all.values().next().value as Entry);
    }
    return id;
  }

  replayAfter(sessionId: string, lastEventId: string): Replay | undefined {
    const log = this.sessions.get(sessionId);
    const cursor = log?.entries.get(lastEventId);
    if (log === undefined || cursor === undefined) return undefined;
    const events: StoredEvent[] = [];
    let after = false;
    for (const entry of log.entries.values()) {
      if (entry === cursor) after = true;
      else if (after && entry.streamId === cursor.streamId && entry.data !== null) events.push({ id: entry.id, data: entry.data });
    }
    return { streamId: cursor.streamId, events };
  }

  deleteSession(sessionId: string): void {
    const log = this.sessions.get(sessionId);
    if (log === undefined) return;
    for (const entry of [...log.entries.values()]) this.evict(entry);
    this.sessions.delete(sessionId);
  }

  /** Counts, for tests and health checks. */
  size(): { events: number; bytes: number; sessions: number } {
    return { events: this.all.size, bytes: this.bytes, sessions: this.sessions.size };
  }

  private evict(entry: Entry): void {
    this.all.delete(entry);
    this.sessions.get(entry.sessionId)?.entries.delete(entry.id);
    this.bytes -= entry.data?.length ?? 0;
  }
}
