/**
 * Key and channel names of one rxmcp deployment in Redis. Every name carries
 * the same hash tag, `{rxmcp:<serverId>}`, so on Redis Cluster all of them
 * live in one slot: each Lua script may touch any of them (a script's keys
 * must share a slot, else CROSSSLOT) and sharded pub/sub reaches the one
 * shard that holds them. Several deployments (or test files) share one Redis
 * by using different server ids.
 */
import { ConfigError } from '../../lib/errors.js';

/** Letters, digits and `._:-`, 1 to 64 of them: no braces, so the tag is the one the name says. */
const SERVER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The Redis keys and channels of one deployment, all under the hash tag `{rxmcp:<serverId>}`. */
export interface ClusterKeys {
  /** `{rxmcp:<serverId>}`. */
  readonly tag: string;
  readonly serverId: string;
  /** A key under the tag: `{rxmcp:id}:part:part`. */
  key(...parts: readonly string[]): string;
  /** A sharded pub/sub channel under the tag. */
  channel(...parts: readonly string[]): string;
}

/** The keys of the deployment named `serverId` (letters, digits and `._:-`, 1 to 64). */
export function clusterKeys(serverId: string): ClusterKeys {
  if (typeof serverId !== 'string' || !SERVER_ID.test(serverId)) {
    throw new ConfigError('serverId', 'serverId must be 1-64 characters of letters, digits and . _ : -');
  }
  const tag = `{rxmcp:${serverId}}`;
  return {
    tag,
    serverId,
    key: (...parts) => [tag, ...parts].join(':'),
    channel: (...parts) => [tag, 'ch', ...parts].join(':'),
  };
}
