/**
 * The event store on Redis Streams (the HTTP transport's EventStore), so a
 * client that lost a stream resumes it with `Last-Event-ID` from a store
 * outside the node's memory: one stream per session, `events:<sessionId>`,
 * trimmed to about `maxEventsPerSession` entries (XADD MAXLEN ~) and expiring
 * `ttlMs` after its last event (PEXPIRE), deleted when the session ends.
 *
 * Only the node holding a session appends to it (every request for it is
 * relayed there), so the ids are minted here, in order, without a round
 * trip: the entry id is `0-<seq>` and the event id `<streamId>_<seq>`, which
 * names its stream, so a replay never crosses into another one. The appends
 * are written behind, per session one script run at a time carrying every
 * event made meanwhile (so the order holds whatever the client's routing,
 * and a busy session costs one round trip per batch, not per event); a
 * replay waits for the appends made before it. At most
 * `maxEventsPerSession` wait per session: past that the oldest waiting one
 * is dropped and reported, as is a failed write; either is then missing
 * from replays, as a trimmed one is.
 *
 * A replay reads the stream from the cursor on (XRANGE, at most
 * `maxEventsPerSession` + 1 entries): the cursor's own entry must be there
 * and on the stream its id names, else the cursor is unknown or trimmed
 * (undefined, a new stream). Entries are validated; a bad one is skipped and
 * reported.
 */
import { positiveIntegerOption } from '../../lib/option-checks.js';
import type { EventStore, Replay, StoredEvent } from '../../lib/ports/event-store.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink, RedisReply } from './link.js';
import { LuaScript } from './lua-script.js';

/** ARGV: maxlen, ttl, then per event seq, stream, and 'd'..data (or 'p', a priming event with no data). */
const APPEND = new LuaScript(
  'rxmcp-events-append',
  `for i = 3, #ARGV, 3 do
  local v = ARGV[i + 2]
  if string.sub(v, 1, 1) == 'd' then
    redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. ARGV[i], 's', ARGV[i + 1], 'd', string.sub(v, 2))
  else
    redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '0-' .. ARGV[i], 's', ARGV[i + 1])
  end
end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`,
);

/** One session's writes: the last seq minted, what waits, and the drain sending it. */
interface SessionWrites {
  seq: number;
  flushedSeq: number;
  /** Flattened (seq, stream, value) triples, in order. */
  waiting: string[];
  draining: Promise<void> | undefined;
}

/** Options of `RedisEventStore`. */
export interface RedisEventStoreOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** Default 512. */
  readonly maxEventsPerSession?: number | undefined;
  /** A session's stream expires this long after its last event. Default 660 000 ms (the default session idle timeout and a minute). */
  readonly ttlMs?: number | undefined;
  /** Where a failed or dropped write is reported. */
  readonly onError?: ((err: unknown) => void) | undefined;
}

/** `<streamId>_<seq>`: the stream ids the transport mints are letters and digits. */
const EVENT_ID = /^([A-Za-z0-9]{1,32})_([1-9][0-9]{0,15})$/;

interface Entry {
  readonly seq: number;
  readonly streamId: string;
  /** Absent on a priming event. */
  readonly data: string | undefined;
}

/** One XRANGE entry, `[id, [field, value, ...]]`, or undefined when it is not one of ours. */
function entryOf(raw: RedisReply): Entry | undefined {
  if (!Array.isArray(raw) || raw.length !== 2 || typeof raw[0] !== 'string' || !Array.isArray(raw[1])) return undefined;
  const match = /^0-([1-9][0-9]{0,15})$/.exec(raw[0]);
  if (match === null) return undefined;
  const fields = raw[1];
  let streamId: string | undefined;
  let data: string | undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const value = fields[i + 1];
    if (typeof value !== 'string') return undefined;
    if (fields[i] === 's') streamId = value;
    else if (fields[i] === 'd') data = value;
  }
  if (streamId === undefined || !/^[A-Za-z0-9]{1,32}$/.test(streamId)) return undefined;
  return { seq: Number(match[1]), streamId, data };
}

/** An `EventStore` on Redis Streams (one stream per session, trimmed and expiring), so a legacy session's SSE stream resumes on whichever node holds it. */
export class RedisEventStore implements EventStore {
  readonly shared = true;
  private readonly maxEventsPerSession: number;
  private readonly ttlMs: number;
  /** The writes of each live session of this node (deleted with the session). */
  private readonly sessions = new Map<string, SessionWrites>();
  /** Sessions being deleted, until Redis has done it. */
  private readonly deletions = new Map<string, Promise<void>>();

  constructor(private readonly options: RedisEventStoreOptions) {
    this.maxEventsPerSession = positiveIntegerOption('maxEventsPerSession', options.maxEventsPerSession, 512);
    this.ttlMs = positiveIntegerOption('ttlMs', options.ttlMs, 660_000);
  }

  append(sessionId: string, streamId: string, data: string | null): string {
    let writes = this.sessions.get(sessionId);
    if (writes === undefined) this.sessions.set(sessionId, (writes = { seq: 0, flushedSeq: 0, waiting: [], draining: undefined }));
    writes.seq += 1;
    writes.waiting.push(String(writes.seq), streamId, data === null ? 'p' : `d${data}`);
    if (writes.waiting.length > 3 * this.maxEventsPerSession) {
      writes.waiting.splice(0, 3);
      this.report(new Error(`event store: more than ${this.maxEventsPerSession} events of session ${sessionId} wait for Redis; the oldest is dropped`));
    }
    writes.draining ??= this.drain(sessionId, writes);
    return `${streamId}_${writes.seq}`;
  }
  async replayAfter(sessionId: string, lastEventId: string): Promise<Replay | undefined> {
    const cursor = EVENT_ID.exec(lastEventId);
    if (cursor === null) return undefined;
    const [, streamId, seqText] = cursor as unknown as [string, string, string];
    const key = this.key(sessionId);
    await this.deletions.get(sessionId);
    const writes = this.sessions.get(sessionId);
    // What was appended before this replay is in Redis before it is read.
    for (const target = writes?.seq ?? 0; writes?.draining !== undefined && writes.flushedSeq < target; ) await writes.draining;
    const reply = await this.options.link.command(key, ['XRANGE', key, `0-${seqText}`, '+', 'COUNT', String(this.maxEventsPerSession + 1)]);
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const first = entryOf(reply[0]!);
    if (first === undefined || first.seq !== Number(seqText) || first.streamId !== streamId) return undefined;
    const events: StoredEvent[] = [];
    for (const raw of reply.slice(1)) {
      const entry = entryOf(raw);
      if (entry === undefined) {
        this.report(new Error(`event store: a malformed entry in ${key}; skipped`));
        continue;
      }
      if (entry.streamId === streamId && entry.data !== undefined) events.push({ id: `${streamId}_${entry.seq}`, data: entry.data });
    }
    return { streamId, events };
  }

  deleteSession(sessionId: string): void {
    const writes = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    const key = this.key(sessionId);
    // After the session's last appends; and a replay asked meanwhile waits for it (the client may route commands apart).
    const deleted = (writes?.draining ?? Promise.resolve())
      .then(() => this.options.link.command(key, ['DEL', key]))
      .then(
        () => undefined,
        (err: unknown) => this.report(err),
      )
      .finally(() => {
        if (this.deletions.get(sessionId) === deleted) this.deletions.delete(sessionId);
      });
    this.deletions.set(sessionId, deleted);
  }

  private key(sessionId: string): string {
    return this.options.keys.key('events', sessionId);
  }

  private report(err: unknown): void {
    this.options.onError?.(err);
  }

  /** Sends what waits, one script run at a time, until nothing does. */
  private async drain(sessionId: string, writes: SessionWrites): Promise<void> {
    const key = this.key(sessionId);
    while (writes.waiting.length > 0) {
      const batch = writes.waiting.splice(0);
      try {
        await this.options.link.run(APPEND, [key], [this.maxEventsPerSession, this.ttlMs, ...batch]);
      } catch (err) {
        this.report(err);
      }
      writes.flushedSeq = Number(batch[batch.length - 3]);
    }
    writes.draining = undefined;
  }
}
