/**
 * connectRedis: a RedisLink from a URL (one Redis) or a list of URLs (the
 * seed nodes of a Redis Cluster), on a node-redis client this module makes
 * and owns. `redis` is an optional peer dependency: it is imported here, on
 * first use, so a process that never scales out never loads it.
 */
import { nodeRedisLink, type RedisLink } from './link.js';

export type RedisTarget = string | { readonly cluster: readonly string[] };

export interface ConnectRedisOptions {
  /** Where connection errors go (node-redis reconnects by itself). */
  readonly onError?: ((err: unknown) => void) | undefined;
}

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
