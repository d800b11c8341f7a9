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
 * are written behind on one connection, in the order made; a replay asked
 * after them is answered after them. A failed append is reported, and the
 * event is then missing from replays (what a trimmed one is too).
 *
 * A replay reads the stream from the cursor on (XRANGE, at most
 * `maxEventsPerSession` + 1 entries): the cursor's own entry must be there
 * and on the stream its id names, else the cursor is unknown or trimmed
 * (undefined, a new stream). Entries are validated; a bad one is skipped and
 * reported.
 */
import { ConfigError } from '../../lib/errors.js';
import type { EventStore, Replay, StoredEvent } from '../../transports/http/event-store.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink, RedisReply } from './link.js';

export interface RedisEventStoreOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** Default 512. */
  readonly maxEventsPerSession?: number;
  /** A session's stream expires this long after its last event. Default 660 000 ms (the default session idle timeout and a minute). */
  readonly ttlMs?: number;
  readonly onError?: (err: unknown) => void;
}

/** `<streamId>_<seq>`: the stream ids the transport mints are letters and digits. */
const EVENT_ID = /^([A-Za-z0-9]{1,32})_([1-9][0-9]{0,15})$/;

function positive(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(option, `${option} must be a positive integer`);
  return value;
}

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

export class RedisEventStore implements EventStore {
  readonly shared = true;
  private readonly maxEventsPerSession: number;
  private readonly ttlMs: number;
  /** The last seq minted per live session of this node (deleted with the session). */
  private readonly seqs = new Map<string, number>();

  constructor(private readonly options: RedisEventStoreOptions) {
    this.maxEventsPerSession = positive('maxEventsPerSession', options.maxEventsPerSession, 512);
    this.ttlMs = positive('ttlMs', options.ttlMs, 660_000);
  }

  append(sessionId: string, streamId: string, data: string | null): string {
    const seq = (this.seqs.get(sessionId) ?? 0) + 1;
    this.seqs.set(sessionId, seq);
    const key = this.key(sessionId);
    const fields = data === null ? ['s', streamId] : ['s', streamId, 'd', data];
    // Two commands on one connection, sent now: their order (and every append's) is the order made.
    this.write(key, ['XADD', key, 'MAXLEN', '~', String(this.maxEventsPerSession), `0-${seq}`, ...fields]);
    this.write(key, ['PEXPIRE', key, String(this.ttlMs)]);
    return `${streamId}_${seq}`;
  }

  async replayAfter(sessionId: string, lastEventId: string): Promise<Replay | undefined> {
    const cursor = EVENT_ID.exec(lastEventId);
    if (cursor === null) return undefined;
    const [, streamId, seqText] = cursor as unknown as [string, string, string];
    const key = this.key(sessionId);
    const reply = await this.options.link.command(key, ['XRANGE', key, `0-${seqText}`, '+', 'COUNT', String(this.maxEventsPerSession + 1)]);
    if (!Array.isArray(reply) || reply.length === 0) return undefined;
    const first = entryOf(reply[0]!);
    if (first === undefined || first.seq !== Number(seqText) || first.streamId !== streamId) return undefined;
    const events: StoredEvent[] = [];
    for (const raw of reply.slice(1)) {
      const entry = entryOf(raw);
      if (entry === undefined) {
        this.options.onError?.(new Error(`event store: a malformed entry in ${key}; skipped`));
        continue;
      }
      if (entry.streamId === streamId && entry.data !== undefined) events.push({ id: `${streamId}_${entry.seq}`, data: entry.data });
    }
    return { streamId, events };
  }

  deleteSession(sessionId: string): void {
    this.seqs.delete(sessionId);
    const key = this.key(sessionId);
    this.write(key, ['DEL', key]);
  }

  private key(sessionId: string): string {
    return this.options.keys.key('events', sessionId);
  }

  private write(key: string, args: readonly string[]): void {
    this.options.link.command(key, args).catch((err: unknown) => this.options.onError?.(err));
  }
}
