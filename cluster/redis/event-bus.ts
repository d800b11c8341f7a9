/**
 * RedisEventBus: the server event bus of one deployment over Redis sharded
 * pub/sub, on the one channel `{rxmcp:<serverId>}:ch:events`.
 *
 * - Local listeners keep the in-memory contract: a publish on this process
 *   reaches them synchronously, in subscription order, before publish
 *   returns; then the event goes to Redis as a small JSON message
 *   `{v:1, node, bus, seq, event}` (`bus`: this instance's random id, `seq`:
 *   its count of publishes).
 * - Messages from Redis whose `bus` is this one's are its own echo and are
 *   skipped; every other message is checked (size, shape, a known event,
 *   a sequence newer than that sender's last) and delivered to the local
 *   listeners and to the `subscribeRemote` listeners (the server's legacy
 *   connections). Anything else is logged and dropped.
 * - `publish` never throws: a Redis failure is logged (the local listeners
 *   have heard the event already).
 * - Redis is subscribed once, by `createRedisEventBus`, before the bus is
 *   handed out, so no event published after that is missed for lack of a
 *   subscriber.
 *
 * Delivery between processes is at most once (plain pub/sub): while the
 * subscriber connection is down, node-redis reconnects and re-issues
 * SSUBSCRIBE by itself, but what other processes published meanwhile is
 * lost; the next message from such a sender shows the gap in its `seq`, and
 * a warning says so. That suits these events: each is an invalidation, and a
 * client re-fetches a list or a resource on hearing one.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../lib/errors.js';
import { InMemoryEventBus, isBusEvent, type BusEvent, type BusListener, type ServerEventBus } from '../../lib/ports/event-bus.js';
import { logSafely } from '../../lib/guarded.js';
import { stderrLogger, type Logger } from '../../lib/logger.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink } from './link.js';

/** Default bound of one message on the channel, in bytes: an event is a type and at most one URI. */
export const DEFAULT_MAX_BUS_MESSAGE_BYTES = 16 * 1024;
/** Senders whose last sequence number is remembered (the oldest is forgotten first). */
const MAX_TRACKED_SENDERS = 1024;
/** Dropped messages are logged one by one up to this many, then one line per thousand. */
const LOGGED_DROPS = 10;

/** Options of `RedisEventBus` and `createRedisEventBus`. */
export interface RedisEventBusOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** This process's name in the deployment, carried in messages for the logs of others. */
  readonly nodeId: string;
  readonly logger?: Logger | undefined;
  /** Largest message sent or accepted; default 16 KiB. */
  readonly maxMessageBytes?: number | undefined;
}

interface BusMessage {
  readonly node: string;
  readonly bus: string;
  readonly seq: number;
  readonly event: BusEvent;
}

/** A `ServerEventBus` over one sharded Redis pub/sub channel: list changes and resource updates cross processes (at most once), a process's own listeners hear its publish synchronously. */
export class RedisEventBus implements ServerEventBus {
  /** This instance's id in messages: its own echo carries it. */
  readonly busId = randomBytes(9).toString('base64url');
  readonly channel: string;
  private readonly local: InMemoryEventBus;
  private readonly remote: InMemoryEventBus;
  private readonly logger: Logger;
  private readonly maxBytes: number;
  private readonly lastSeq = new Map<string, number>();
  private seq = 0;
  private drops = 0;
  private unsubscribeRedis: (() => Promise<void>) | undefined;
  private closed = false;

  /** Use createRedisEventBus: a bus is handed out subscribed. */
  constructor(private readonly options: RedisEventBusOptions) {
    this.channel = options.keys.channel('events');
    this.logger = options.logger ?? stderrLogger();
    this.local = new InMemoryEventBus({ logger: this.logger });
    this.remote = new InMemoryEventBus({ logger: this.logger });
    this.maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_BUS_MESSAGE_BYTES;
  }

  /** This process's listeners hear it at once; the other processes through Redis (a failure is logged, never thrown). */
  publish(event: BusEvent): void {
    this.local.publish(event);
    if (this.closed) return;
    if (!isBusEvent(event)) {
      logSafely(this.logger, 'warn', { event }, 'not an event the bus carries: heard on this process only');
      return;
    }
    this.seq += 1;
    const message = JSON.stringify({ v: 1, node: this.options.nodeId, bus: this.busId, seq: this.seq, event: cleanEvent(event) });
    if (Buffer.byteLength(message, 'utf8') > this.maxBytes) {
      logSafely(this.logger, 'warn', { event: event.type, maxBytes: this.maxBytes }, 'event too large for the Redis bus: heard on this process only');
      return;
    }
    try {
      this.options.link.publish(this.channel, message).catch((err: unknown) => this.publishFailed(err, event));
    } catch (err) {
      this.publishFailed(err, event);
    }
  }

  subscribe(listener: BusListener): () => void {
    return this.local.subscribe(listener);
  }

  subscribeRemote(listener: BusListener): () => void {
    return this.remote.subscribe(listener);
  }

  /** Local and remote listeners subscribed now (for tests and leak checks). */
  get size(): number {
    return this.local.size + this.remote.size;
  }

  /** Subscribes the channel; createRedisEventBus calls it once. */
  async start(): Promise<void> {
    if (this.unsubscribeRedis !== undefined) return;
    this.unsubscribeRedis = await this.options.link.subscribe(this.channel, (message) => this.receive(message));
  }

  /** Unsubscribes from Redis; later publishes reach this process's listeners only. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const unsubscribe = this.unsubscribeRedis;
    this.unsubscribeRedis = undefined;
    if (unsubscribe !== undefined) await unsubscribe();
  }

  private publishFailed(err: unknown, event: BusEvent): void {
    logSafely(this.logger, 'error', { err, event: event.type }, 'the Redis bus failed to publish: other processes did not hear this event');
  }

  private receive(raw: unknown): void {
    if (this.closed) return;
    const message = this.parse(raw);
    if (message === undefined || message.bus === this.busId) return;
    const last = this.lastSeq.get(message.bus);
    if (last !== undefined && message.seq <= last) {
      this.dropped('a repeated or out-of-order sequence number', { node: message.node, seq: message.seq, last });
      return;
    }
    if (last !== undefined && message.seq > last + 1) {
      logSafely(this.logger, 'warn', { node: message.node, missed: message.seq - last - 1 }, 'events from another process were lost (Redis was unreachable?)');
    }
    this.remember(message.bus, message.seq);
    this.local.publish(message.event);
    this.remote.publish(message.event);
  }

  private parse(raw: unknown): BusMessage | undefined {
    if (typeof raw !== 'string') return this.dropped('not a string');
    // A string of more UTF-16 units than the bound has more bytes than it, so the cheap check goes first.
    if (raw.length > this.maxBytes || Buffer.byteLength(raw, 'utf8') > this.maxBytes) {
      return this.dropped('too large', { bytes: Buffer.byteLength(raw, 'utf8'), maxBytes: this.maxBytes });
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return this.dropped('not JSON');
    }
    if (!isPlainObject(value) || value.v !== 1) return this.dropped('not a version 1 bus message');
    const { node, bus, seq, event } = value;
    if (!isName(node) || !isName(bus)) return this.dropped('no sender');
    if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return this.dropped('no sequence number');
    if (!isBusEvent(event)) return this.dropped('not a known event');
    return { node, bus, seq, event: cleanEvent(event) };
  }

  private dropped(reason: string, fields: Record<string, unknown> = {}): undefined {
    this.drops += 1;
    if (this.drops <= LOGGED_DROPS || this.drops % 1000 === 0) {
      logSafely(this.logger, 'warn', { ...fields, reason, channel: this.channel, dropped: this.drops }, 'dropped a message on the Redis event bus');
    }
    return undefined;
  }

  private remember(bus: string, seq: number): void {
    // Re-inserted so the Map's order is least recently heard first.
    this.lastSeq.delete(bus);
    this.lastSeq.set(bus, seq);
    if (this.lastSeq.size > MAX_TRACKED_SENDERS) {
      const oldest = this.lastSeq.keys().next().value;
      if (oldest !== undefined) this.lastSeq.delete(oldest);
    }
  }
}

/** Only the fields an event has: nothing else a sender added travels on. */
function cleanEvent(event: BusEvent): BusEvent {
  if (event.type === 'resource_updated') return { type: event.type, uri: event.uri };
  if (event.type === 'task_status') return { type: event.type, taskId: event.taskId };
  return { type: event.type };
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 128;
}

/** A RedisEventBus subscribed to its channel: await it before the server starts. */
export async function createRedisEventBus(options: RedisEventBusOptions): Promise<RedisEventBus> {
  const maxBytes = options.maxMessageBytes;
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 256)) {
    throw new ConfigError('maxMessageBytes', 'maxMessageBytes must be an integer of at least 256');
  }
  const bus = new RedisEventBus(options);
  await bus.start();
  return bus;
}
