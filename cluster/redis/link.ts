/**
 * RedisLink: the few things rxmcp asks of Redis, as an interface of ours, so
 * the cluster stores do not depend on one client's types. `nodeRedisLink`
 * implements it on node-redis (`redis` 6): a client from `createClient` or a
 * cluster from `createCluster`. An ioredis or iovalkey user implements these
 * five methods over their client.
 *
 * Every key a script touches and every channel is under one hash tag
 * (keys.ts), so on Redis Cluster the first key routes the command and
 * sharded pub/sub (SPUBLISH/SSUBSCRIBE, Redis 7) reaches the right shard; on
 * a single Redis the same commands work unchanged.
 */
import { isNoScriptError, type LuaScript } from './lua-script.js';

/** A Redis reply as the stores read it. */
export type RedisReply = string | number | null | RedisReply[];

/** What the cluster stores need of a Redis client: scripts, commands and sharded pub/sub. `connectRedis` or `nodeRedisLink` makes one. */
export interface RedisLink {
  /** Runs `script` on `keys` (all under one hash tag) and `args`; resolves to its reply. */
  run(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<RedisReply>;
  /** Any other command, routed by `key` on a cluster. */
  command(key: string, args: readonly string[]): Promise<RedisReply>;
  /** SPUBLISH: delivered to every subscriber of `channel`, on every process, at most once. */
  publish(channel: string, message: string): Promise<void>;
  /** SSUBSCRIBE on a connection of its own; resolves once subscribed, to the function that ends it. */
  subscribe(channel: string, listener: (message: string) => void): Promise<() => Promise<void>>;
  /** Ends what this link opened (not a client the caller gave). */
  close(): Promise<void>;
}

/** The methods of a node-redis client or cluster this link uses (structural, so both fit). */
interface NodeRedisClient {
  connect(): Promise<unknown>;
  duplicate(): NodeRedisClient;
  close?(): Promise<void>;
  quit?(): Promise<unknown>;
  readonly isOpen?: boolean;
  sSubscribe(channel: string, listener: (message: string) => void): Promise<void>;
  sUnsubscribe(channel: string, listener?: (message: string) => void): Promise<void>;
  on(event: 'error', listener: (err: unknown) => void): unknown;
}

interface SingleClient extends NodeRedisClient {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

interface ClusterClient extends NodeRedisClient {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: readonly string[]): Promise<unknown>;
  readonly masters: unknown;
}

function isCluster(client: NodeRedisClient): client is ClusterClient {
  return 'masters' in client;
}

/** Options of `nodeRedisLink`. */
export interface NodeRedisLinkOptions {
  /** Whether `close()` also closes `client` (true when the link made it). Default false. */
  readonly ownsClient?: boolean | undefined;
  /** Where connection errors go; node-redis reconnects by itself, so they are reported, not thrown. */
  readonly onError?: ((err: unknown) => void) | undefined;
}

async function closeClient(client: NodeRedisClient): Promise<void> {
  if (client.isOpen === false) return;
  if (typeof client.close === 'function') await client.close();
  else if (typeof client.quit === 'function') await client.quit();
}

/**
 * A link over a connected node-redis client or cluster. The subscriber is a
 * duplicate (a subscribed RESP2 connection can do nothing else), made and
 * connected on the first subscribe.
 */
export function nodeRedisLink(client: unknown, options: NodeRedisLinkOptions = {}): RedisLink {
  const redis = client as SingleClient | ClusterClient;
  let subscriber: Promise<NodeRedisClient> | undefined;
  const send = (key: string, args: readonly string[]): Promise<unknown> =>
    isCluster(redis) ? redis.sendCommand(key, false, args) : (redis as SingleClient).sendCommand(args);
  const subscriberConnection = (): Promise<NodeRedisClient> =>
    (subscriber ??= (async () => {
      const duplicate = redis.duplicate();
      duplicate.on('error', (err) => options.onError?.(err));
      await duplicate.connect();
      return duplicate;
    })());
  return {
    async run(script, keys, args) {
      const firstKey = keys[0] ?? script.name;
      const tail = [String(keys.length), ...keys, ...args.map(String)];
      try {
        return (await send(firstKey, ['EVALSHA', script.sha1, ...tail])) as RedisReply;
      } catch (err) {
        if (!isNoScriptError(err)) throw err;
        return (await send(firstKey, ['EVAL', script.source, ...tail])) as RedisReply;
      }
    },
    async command(key, args) {
      return (await send(key, args)) as RedisReply;
    },
    async publish(channel, message) {
      await send(channel, ['SPUBLISH', channel, message]);
    },
    async subscribe(channel, listener) {
      const connection = await subscriberConnection();
      const wrapped = (message: string): void => listener(message);
      await connection.sSubscribe(channel, wrapped);
      let ended = false;
      return async () => {
        if (ended) return;
        ended = true;
        await connection.sUnsubscribe(channel, wrapped);
      };
    },
    async close() {
      const sub = subscriber;
      subscriber = undefined;
      if (sub !== undefined) await closeClient(await sub).catch(() => undefined);
      if (options.ownsClient === true) await closeClient(redis);
    },
  };
}
