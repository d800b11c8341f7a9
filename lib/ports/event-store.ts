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
 *
 * Its byte count is everything it holds: each event's data and id (two bytes
 * a character unless ASCII, as V8 keeps them) plus a fixed charge for the
 * entry around them, and each session's id plus a fixed charge for its log.
 * An evicted or deleted event is unlinked at once, so nothing the store no
 * longer counts stays reachable from it.
 */
import { Buffer } from 'node:buffer';


/** One SSE event as stored: its id and data. */
export interface StoredEvent {
  readonly id: string;
  /** The serialized JSON-RPC message, as sent in the event's `data`. */
  readonly data: string;
}

/** What a resume reads back: the stream it belongs to and the events after the client's `Last-Event-ID`. */
export interface Replay {
  /** The stream the cursor belongs to. */
  readonly streamId: string;
  /** Its events after the cursor, oldest first. */
  readonly events: readonly StoredEvent[];
}

/** Where the HTTP transport keeps SSE events so a GET with `Last-Event-ID` resumes a stream (the `eventStore` option). */
export interface EventStore {
  /**
   * Records one event of `streamId` in `sessionId` and returns its id. `null`
   * data is a cursor only (a stream's priming event): resumable, never replayed.
   */
  append(sessionId: string, streamId: string, data: string | null): string;
  /**
   * The events after `lastEventId` on its stream; undefined when the id is unknown or evicted. A shared store
   * (another process) may answer with a promise: then set `shared`.
   */
  replayAfter(sessionId: string, lastEventId: string): Replay | undefined | PromiseLike<Replay | undefined>;
  /** Forgets a session's events (the session ended). */
  deleteSession(sessionId: string): void;
  /**
   * The store answers replays later (it is elsewhere): a stream whose reader falls behind then keeps what waits
   * (bounded, then cut off, and the client resumes) instead of reading it back here.
   */
  readonly shared?: boolean;
}

/** Options of `InMemoryEventStore`: its bounds per session, in events and in bytes. */
export interface InMemoryEventStoreOptions {
  /** Default 512. */
  readonly maxEventsPerSession?: number | undefined;
  /** Default 16 384. */
  readonly maxEvents?: number | undefined;
  /** Default 64 MiB, counting everything the store holds (see storedEventBytes, storedSessionBytes). */
  readonly maxBytes?: number | undefined;
}

/** The entry object, its two list links and its slot in the session's log. */
export const EVENT_OVERHEAD_BYTES = 128;
/** The session's log, its map entry and its Fifo's array. */
export const SESSION_OVERHEAD_BYTES = 256;

/** A string's characters as V8 holds them: one byte each when all are ASCII, else (at most) two. */
function textBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8') === text.length ? text.length : 2 * text.length;
}

/** What one stored event counts against maxBytes. */
export function storedEventBytes(streamId: string, id: string, data: string | null): number {
  return EVENT_OVERHEAD_BYTES + textBytes(streamId) + textBytes(id) + (data === null ? 0 : textBytes(data));
}

/** What one session's bookkeeping counts against maxBytes, while it has not been deleted. */
export function storedSessionBytes(sessionId: string): number {
  return SESSION_OVERHEAD_BYTES + textBytes(sessionId);
}

interface Entry {
  /** The log it is in. */
  readonly log: SessionLog;
  readonly seq: number;
  readonly streamId: string;
  readonly id: string;
  readonly data: string | null;
  readonly bytes: number;
  /** Neighbours in the store-wide list, oldest to newest; unset once the entry is gone. */
  older: Entry | undefined;
  newer: Entry | undefined;
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
    // Amortised, and the dead front never outweighs the live items (their charge covers it).
    if (this.head >= 32 && this.head * 2 >= this.items.length) this.compact();
    return item;
  }

  private compact(): void {
    this.items = this.items.slice(this.head);
    this.head = 0;
  }
}

interface SessionLog {
  readonly bytes: number;
  nextSeq: number;
  /** Oldest first, with contiguous seqs: eviction only ever takes a session's oldest. */
  readonly entries: Fifo<Entry>;
}

/** The sequence number an id minted here ends with, or NaN. */
function seqOf(id: string): number {
  const at = id.lastIndexOf('_');
  return at < 0 ? NaN : Number(id.slice(at + 1));
}

/** The default `EventStore`: SSE events in memory, bounded per session, in count and in bytes. */
export class InMemoryEventStore implements EventStore {
  private readonly maxEventsPerSession: number;
  private readonly maxEvents: number;
  private readonly maxBytes: number;
  private readonly sessions = new Map<string, SessionLog>();
  /**
   * Every live entry across sessions, as a list oldest to newest, for the
   * total bounds. The oldest entry overall is also the oldest of its session.
   */
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
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
      log = { bytes: storedSessionBytes(sessionId), nextSeq: 1, entries: new Fifo() };
      this.sessions.set(sessionId, log);
      this.bytes += log.bytes;
    }
    const seq = log.nextSeq++;
    const id = `${streamId}_${seq}`;
    const entry: Entry = { log, seq, streamId, id, data, bytes: storedEventBytes(streamId, id, data), older: this.newest, newer: undefined };
    if (this.newest === undefined) this.oldest = entry;
    else this.newest.newer = entry;
    this.newest = entry;
    log.entries.push(entry);
    this.count += 1;
    this.bytes += entry.bytes;
    while (log.entries.length > this.maxEventsPerSession) this.unlink(log.entries.shift()!);
    while (this.count > this.maxEvents || (this.bytes > this.maxBytes && this.count > 0)) {
      const victim = this.oldest!;
      victim.log.entries.shift();
      this.unlink(victim);
    }
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
    for (let entry = log.entries.shift(); entry !== undefined; entry = log.entries.shift()) this.unlink(entry);
    this.sessions.delete(sessionId);
    this.bytes -= log.bytes;
  }

  /** Counts, for tests and health checks; `bytes` is what maxBytes bounds. */
  size(): { events: number; bytes: number; sessions: number } {
    return { events: this.count, bytes: this.bytes, sessions: this.sessions.size };
  }

  /** Takes an entry out of the store-wide list; the caller has taken it out of its session's log. */
  private unlink(entry: Entry): void {
    if (entry.older === undefined) this.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) this.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
    this.count -= 1;
    this.bytes -= entry.bytes;
  }
}
