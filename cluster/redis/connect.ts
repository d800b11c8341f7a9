/**
 * connectRedis: a RedisLink from a URL (one Redis) or a list of URLs (the
 * seed nodes of a Redis Cluster), on a node-redis client this module makes
 * and owns. `redis` is an optional peer dependency: it is imported here, on
 * first use, so a process that never scales out never loads it.
 */
import { nodeRedisLink, type RedisLink } from './link.js';

/** A Redis URL, or the URLs of a Redis Cluster. */
export type RedisTarget = string | { readonly cluster: readonly string[] };

/** Options of `connectRedis`. */
export interface ConnectRedisOptions {
  /** Where connection errors go (node-redis reconnects by itself). */
  readonly onError?: ((err: unknown) => void) | undefined;
}

/** Connects to Redis (a URL, or `{ cluster: [urls] }` for Redis Cluster) with node-redis 6 and returns the `RedisLink` the cluster stores use. */
export async function connectRedis(target: RedisTarget, options: ConnectRedisOptions = {}): Promise<RedisLink> {
  const redis = await import('redis');
  const client =
    typeof target === 'string'
      ? redis.createClient({ url: target })
      : redis.createCluster({ rootNodes: target.cluster.map((url) => ({ url })) });
  client.on('error', (err: unknown) => options.onError?.(err));
  await client.connect();
  return nodeRedisLink(client, { ownsClient: true, ...(options.onError ? { onError: options.onError } : {}) });
}
