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
  /** The log it is in (a deleted session's entries still point at theirs). */
  readonly log: SessionLog;
  readonly seq: number;
  readonly streamId: string;
  readonly id: string;
  readonly data: string | null;
  evicted: boolean;
}

/** A FIFO on an array: push at the back, take from the front, no copying per take. */
class Fifo<T> {
  items: T[] = [];
  head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  at(index: number): T | undefined {
    return index < 0 ? undefined : this.items[this.head + index];
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.items[this.head] = undefined as T; // let it go
    this.head += 1;
    // Amortised: the dead front is dropped once it is half the array.
    if (this.head >= 1024 && this.head * 2 >= this.items.length) this.compact(() => true);
    return item;
  }

  /** Keeps the live items that pass `keep`, in order. */
  compact(keep: (item: T) => boolean): void {
    const kept: T[] = [];
    for (let i = this.head; i < this.items.length; i += 1) {
      const item = this.items[i]!;
      if (keep(item)) kept.push(item);
    }
    this.items = kept;
    this.head = 0;
  }
}

interface SessionLog {
  nextSeq: number;
  /** Oldest first, with contiguous seqs: eviction only ever takes a session's oldest. */
  readonly entries: Fifo<Entry>;
}

/** The sequence number an id minted here ends with, or NaN. */
function seqOf(id: string): number {
  const at = id.lastIndexOf('_');
  return at < 0 ? NaN : Number(id.slice(at + 1));
}

export class InMemoryEventStore implements EventStore {
  private readonly maxEventsPerSession: number;
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly sessions = new Map<string, SessionLog>();
  /**
   * Every entry across sessions, oldest first, for the total bounds. An entry
   * evicted through its session stays here, marked, until it reaches the
   * front or a compaction drops it.
   */
  private readonly all = new Fifo<Entry>();
  private count = 0;
  private bytes = 0;

  constructor(options: InMemoryEventStoreOptions = {}) {
    this.maxEventsPerSession = options.maxEventsPerSession ?? 512;
    this.maxEvents = options.maxEvents ?? 16_384;
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  append(sessionId: string, streamId: string, data: string | null): string {
    let log = this.sessions.get(sessionId);
    if (log === undefined) {
      log = { nextSeq: 1, entries: new Fifo() };
      this.sessions.set(sessionId, log);
    }
    const seq = log.nextSeq++;
    const id = `${streamId}_${seq}`;
    const entry: Entry = { log, seq, streamId, id, data, evicted: false };
    log.entries.push(entry);
    this.all.push(entry);
    this.count += 1;
    this.bytes += data?.length ?? 0;
    while (log.entries.length > this.maxEventsPerSession) this.evict(log.entries.shift()!);
    while (this.count > this.maxEvents || (this.bytes > this.maxBytes && this.count > 0)) this.evictOldest();
    if (this.all.length > 2 * this.count + 1024) this.all.compact((e) => !e.evicted);
    return id;
  }

  replayAfter(sessionId: string, lastEventId: string): Replay | undefined {
    const log = this.sessions.get(sessionId);
    if (log === undefined) return undefined;
    const first = log.entries.at(0);
    if (first === undefined) return undefined;
    const at = seqOf(lastEventId) - first.seq;
    const cursor = Number.isSafeInteger(at) ? log.entries.at(at) : undefined;
    if (cursor === undefined || cursor.id !== lastEventId) return undefined;
    const events: StoredEvent[] = [];
    for (let i = at + 1; i < log.entries.length; i += 1) {
      const entry = log.entries.at(i)!;
      if (entry.streamId === cursor.streamId && entry.data !== null) events.push({ id: entry.id, data: entry.data });
    }
    return { streamId: cursor.streamId, events };
  }

  deleteSession(sessionId: string): void {
    const log = this.sessions.get(sessionId);
    if (log === undefined) return;
    for (let entry = log.entries.shift(); entry !== undefined; entry = log.entries.shift()) this.evict(entry);
    this.sessions.delete(sessionId);
  }

  /** Counts, for tests and health checks. */
  size(): { events: number; bytes: number; sessions: number } {
    return { events: this.count, bytes: this.bytes, sessions: this.sessions.size };
  }

  /** Marks an entry gone; the caller has taken it out of its session's log. */
  private evict(entry: Entry): void {
    if (entry.evicted) return;
    entry.evicted = true;
    this.count -= 1;
    this.bytes -= entry.data?.length ?? 0;
  }

  /** The oldest live entry goes, from its session's log (where it is the oldest too) and from the total. */
  private evictOldest(): void {
    for (let entry = this.all.shift(); entry !== undefined; entry = this.all.shift()) {
      if (entry.evicted) continue;
      entry.log.entries.shift();
      this.evict(entry);
      return;
    }
  }
}
