/**
 * The session directory on Redis (the HTTP transport's SessionDirectory):
 * each node keeps one liveness record, `node:<nodeId>` = `{"url": ...}`, set
 * with PX `ttlMs` and refreshed every `heartbeatMs`, naming where the other
 * nodes relay requests for its sessions. A node that dies stops refreshing
 * it and within `ttlMs` every node answers its sessions with 404; one that
 * refuses a relayed connection sooner is dropped at once by whoever noticed
 * (a compare-and-delete, so a record it has just renewed stays). A node that
 * leaves (close) deletes its record.
 *
 * The relay key that signs relayed requests is given, or shared through
 * Redis (`relay-key`, set once by whichever node comes first). Anyone who can
 * read the deployment's keys can read it; give one out of band
 * (`relayKey`) where Redis is less trusted than the nodes.
 *
 * Found nodes are cached for `cacheMs` (bounded), so a busy session costs
 * no round trip per relayed request; a node found unreachable is remembered
 * as gone for as long. What Redis returns is validated, and a bad record
 * counts as no node.
 */
import { randomBytes } from 'node:crypto';
import { ConfigError } from '../../lib/errors.js';
import { positiveIntegerOption } from '../../lib/option-checks.js';
import { isNodeId, type SessionDirectory, type SessionRoute } from '../../lib/ports/session-directory.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink } from './link.js';
import { LuaScript } from './lua-script.js';

/** Options of `redisSessionDirectory`. */
export interface RedisSessionDirectoryOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  readonly nodeId: string;
  /** Where the other nodes reach this one's handler; or call `advertise` once it listens. */
  readonly url?: string | undefined;
  /** Default 2000 ms. */
  readonly heartbeatMs?: number | undefined;
  /** How long a silent node counts as alive. Default 3 × heartbeatMs. */
  readonly ttlMs?: number | undefined;
  /** How long a lookup is believed without asking again. Default 1000 ms. */
  readonly cacheMs?: number | undefined;
  /** The deployment's relay key (16 bytes or more), the same on every node; default one shared through Redis. */
  readonly relayKey?: Uint8Array | undefined;
  /** Where a Redis failure of the heartbeat or a lookup is reported. */
  readonly onError?: ((err: unknown) => void) | undefined;
}

/** A `SessionDirectory` on Redis: this node's liveness record, where the others reach it, and the relay key. */
export interface RedisSessionDirectory extends SessionDirectory {
  /** Publishes where this node is reached and keeps it alive until close. */
  advertise(url: string): Promise<void>;
  /** Stops the heartbeat and deletes this node's record: its sessions are gone for every node. */
  close(): Promise<void>;
}

const MAX_URL_LENGTH = 2048;
const MAX_CACHED = 1024;
const KEY_BYTES = 32;

/** Deletes a node's record only while it still says what the caller found unreachable. */
const DROP_IF_SAME = new LuaScript(
  'rxmcp-directory-drop',
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
);

function validUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_URL_LENGTH) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? value : undefined;
  } catch {
    return undefined;
  }
}

function routeFrom(nodeId: string, record: unknown): SessionRoute | undefined {
  if (typeof record !== 'string' || record.length > MAX_URL_LENGTH + 32) return undefined;
  try {
    const parsed: unknown = JSON.parse(record);
    const url = typeof parsed === 'object' && parsed !== null ? validUrl((parsed as { url?: unknown }).url) : undefined;
    return url === undefined ? undefined : { nodeId, url };
  } catch {
    return undefined;
  }
}

async function sharedRelayKey(link: RedisLink, key: string): Promise<Uint8Array> {
  await link.command(key, ['SET', key, randomBytes(KEY_BYTES).toString('base64url'), 'NX']);
  const stored = await link.command(key, ['GET', key]);
  const bytes = typeof stored === 'string' ? Buffer.from(stored, 'base64url') : Buffer.alloc(0);
  if (bytes.length < 16) throw new Error(`the relay key in Redis (${key}) is not a key of 16 bytes or more: delete it, or give relayKey`);
  return bytes;
}

/** Builds the session directory for legacy sessions across nodes: session ids name their node, and a request for another node's session is relayed there. */
export async function redisSessionDirectory(options: RedisSessionDirectoryOptions): Promise<RedisSessionDirectory> {
  const { link, keys, nodeId } = options;
  if (!isNodeId(nodeId)) throw new ConfigError('nodeId', 'nodeId must be 1-64 letters, digits, _ or - (session ids carry it)');
  const heartbeatMs = positiveIntegerOption('heartbeatMs', options.heartbeatMs, 2000);
  const ttlMs = positiveIntegerOption('ttlMs', options.ttlMs, 3 * heartbeatMs);
  const cacheMs = positiveIntegerOption('cacheMs', options.cacheMs, 1000);
  if (options.relayKey !== undefined && (!(options.relayKey instanceof Uint8Array) || options.relayKey.length < 16)) {
    throw new ConfigError('relayKey', 'relayKey must be 16 bytes or more');
  }
  const relayKey = options.relayKey ?? (await sharedRelayKey(link, keys.key('relay-key')));
  const recordKey = (id: string): string => keys.key('node', id);
  const report = (err: unknown): void => options.onError?.(err);
  const cache = new Map<string, { route: SessionRoute | undefined; record: string | undefined; until: number }>();
  let record: string | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  const beat = async (): Promise<void> => {
    if (record === undefined || closed) return;
    await link.command(recordKey(nodeId), ['SET', recordKey(nodeId), record, 'PX', String(ttlMs)]);
  };

  const directory: RedisSessionDirectory = {
    nodeId,
    relayKey,
    async advertise(url) {
      if (validUrl(url) === undefined) throw new ConfigError('url', `the relay URL must be an http(s) URL, got ${JSON.stringify(url)}`);
      record = JSON.stringify({ url });
      await beat();
      if (heartbeat === undefined) {
        heartbeat = setInterval(() => void beat().catch(report), heartbeatMs);
        heartbeat.unref();
      }
    },
    async locate(id) {
      const now = Date.now();
      const cached = cache.get(id);
      if (cached !== undefined && cached.until > now) return cached.route;
      const found = await link.command(recordKey(id), ['GET', recordKey(id)]);
      const route = routeFrom(id, found);
      if (found !== null && route === undefined) report(new Error(`session directory: the record of node ${JSON.stringify(id)} is not valid; ignored`));
      cache.delete(id);
      // A node not (yet) found is asked again next time: it may be advertising just now.
      if (route === undefined) return undefined;
      if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
      cache.set(id, { route, record: found as string, until: now + cacheMs });
      return route;
    },
    unreachable(route) {
      const cached = cache.get(route.nodeId);
      cache.set(route.nodeId, { route: undefined, record: undefined, until: Date.now() + cacheMs });
      const seen = cached?.record ?? JSON.stringify({ url: route.url });
      link.run(DROP_IF_SAME, [recordKey(route.nodeId)], [seen]).catch(report);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      if (record !== undefined) await link.command(recordKey(nodeId), ['DEL', recordKey(nodeId)]).catch(report);
    },
  };
  if (options.url !== undefined) await directory.advertise(options.url);
  return directory;
}
