/**
 * The RedisLink over node-redis, on a real Redis and on a 3-node Redis
 * Cluster: scripts by SHA with the NOSCRIPT fallback, sharded pub/sub, and
 * the hash-tag rule (keys of one deployment share a slot; keys that do not
 * are refused by a cluster, which is why every name carries the tag).
 */
import { describe, expect, test } from 'vitest';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { LuaScript } from '../../cluster/redis/lua-script.js';
import { REDIS_TOPOLOGIES, redisTopologyForSuite } from '../helpers/redis-server.js';

const INCR_BOTH = new LuaScript('incr-both', "redis.call('INCR', KEYS[1]); return redis.call('INCRBY', KEYS[2], ARGV[1])");

async function roundTrip(link: RedisLink, channel: string): Promise<string> {
  const received = new Promise<string>((resolve) => {
    void link.subscribe(channel, resolve).then(() => link.publish(channel, 'hello'));
  });
  return received;
}

describe.each(REDIS_TOPOLOGIES)('RedisLink on %s', (_name, clustered) => {
  let link: RedisLink;
  redisTopologyForSuite(clustered, async (redis) => {
    link = await redis.link();
  });

  test('runs a script by SHA, loading it on NOSCRIPT, on keys under one tag', async () => {
    const keys = clusterKeys('link-test');
    await link.command(keys.key('a'), ['SCRIPT', 'FLUSH']).catch(() => undefined);
    expect(await link.run(INCR_BOTH, [keys.key('a'), keys.key('b')], [5])).toBe(5);
    expect(await link.run(INCR_BOTH, [keys.key('a'), keys.key('b')], [5])).toBe(10);
    expect(await link.command(keys.key('a'), ['GET', keys.key('a')])).toBe('2');
  });

  test('delivers a sharded publish to a subscriber', async () => {
    expect(await roundTrip(link, clusterKeys('link-test').channel('events'))).toBe('hello');
  });

  if (clustered) test('refuses a script over keys in two slots (CROSSSLOT): the tag is what keeps them together', async () => {
    // Without a common tag these two names hash to different slots of 16384.
    await expect(link.run(INCR_BOTH, ['rxmcp-untagged-a', 'rxmcp-untagged-b'], [1])).rejects.toThrow(/CROSSSLOT/);
  });
});

test('clusterKeys refuses a server id that would change the tag', () => {
  expect(() => clusterKeys('a}b')).toThrow(/serverId/);
  expect(clusterKeys('notes').key('tickets')).toBe('{rxmcp:notes}:tickets');
});
