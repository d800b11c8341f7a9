/**
 * The legacy era's Redis stores on a real Redis and on a 3-node Redis
 * Cluster (every key under the deployment's tag): the event store on Redis
 * Streams (ids that name their stream, replay from a cursor, trimming,
 * expiry, validation) and the session directory (liveness records, the
 * shared relay key, dropping an unreachable node, leaving).
 */
import { describe, expect, test } from 'vitest';
import { RedisEventStore } from '../../cluster/redis/event-store.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { redisSessionDirectory } from '../../cluster/redis/session-directory.js';
import { REDIS_TOPOLOGIES, redisTopologyForSuite } from '../helpers/redis-server.js';

let unique = 0;
const serverId = (): string => `legacy-${process.pid}-${(unique += 1)}`;

describe.each(REDIS_TOPOLOGIES)('legacy stores on %s', (_name, clustered) => {
  let link: RedisLink;
  redisTopologyForSuite(clustered, async (redis) => {
    link = await redis.link();
  });

  test('replays the events after a cursor on its own stream only, and reads its own writes', async () => {
    const keys = clusterKeys(serverId());
    const store = new RedisEventStore({ link, keys });
    const prime = store.append('s1', 'g1', null);
    const a = store.append('s1', 'g1', '{"n":1}');
    store.append('s1', 'p2', '{"other":true}');
    const b = store.append('s1', 'g1', '{"n":2}');
    expect([prime, a, b]).toEqual(['g1_1', 'g1_2', 'g1_4']);
    // Asked before any append was acknowledged: answered after them.
    expect(await store.replayAfter('s1', prime)).toEqual({ streamId: 'g1', events: [{ id: a, data: '{"n":1}' }, { id: b, data: '{"n":2}' }] });
    expect(await store.replayAfter('s1', a)).toEqual({ streamId: 'g1', events: [{ id: b, data: '{"n":2}' }] });
    expect(await store.replayAfter('s1', 'p2_3')).toEqual({ streamId: 'p2', events: [] });
    // A cursor naming the wrong stream, one never minted, one of no shape, another session: unknown.
    expect(await store.replayAfter('s1', 'p2_2')).toBeUndefined();
    expect(await store.replayAfter('s1', 'g1_99')).toBeUndefined();
    expect(await store.replayAfter('s1', '../g1_1')).toBeUndefined();
    expect(await store.replayAfter('s2', prime)).toBeUndefined();
    const ttl = await link.command(keys.key('events', 's1'), ['PTTL', keys.key('events', 's1')]);
    expect(ttl).toBeGreaterThan(600_000);
    store.deleteSession('s1');
    expect(await store.replayAfter('s1', prime)).toBeUndefined();
  });

  test('trims a session to about maxEventsPerSession: a trimmed cursor is unknown, a recent one replays', async () => {
    const store = new RedisEventStore({ link, keys: clusterKeys(serverId()), maxEventsPerSession: 4 });
    const ids: string[] = [];
    for (let round = 0; round < 100; round += 1) {
      for (let i = 0; i < 3; i += 1) ids.push(store.append('s', 'g1', String(ids.length)));
      await store.replayAfter('s', ids[ids.length - 1]!); // lets the writes out, a batch at a time
    }
    expect(await store.replayAfter('s', ids[0]!)).toBeUndefined();
    expect(await store.replayAfter('s', ids[297]!)).toEqual({ streamId: 'g1', events: [{ id: ids[298], data: '298' }, { id: ids[299], data: '299' }] });
  });

  test('a burst larger than a session holds keeps its newest events and reports the dropped ones', async () => {
    const errors: unknown[] = [];
    const store = new RedisEventStore({ link, keys: clusterKeys(serverId()), maxEventsPerSession: 4, onError: (err) => errors.push(err) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(store.append('s', 'g1', String(i)));
    expect(await store.replayAfter('s', ids[15]!)).toBeUndefined(); // dropped: never written
    const replay = await store.replayAfter('s', ids[0]!);
    expect(replay).toEqual({ streamId: 'g1', events: [16, 17, 18, 19].map((i) => ({ id: ids[i], data: String(i) })) });
    expect(errors.length).toBe(15); // the first went out at once, four wait, fifteen were dropped
  });

  test('skips and reports an entry that is not one of its own', async () => {
    const keys = clusterKeys(serverId());
    const errors: unknown[] = [];
    const store = new RedisEventStore({ link, keys, onError: (err) => errors.push(err) });
    const first = store.append('s', 'g1', '1');
    await store.replayAfter('s', first);
    const key = keys.key('events', 's');
    await link.command(key, ['XADD', key, '0-2', 's', 'g1', 'd', '2']);
    await link.command(key, ['XADD', key, '0-3', 's', '{bad}', 'd', 'x']);
    await link.command(key, ['XADD', key, '0-4', 's', 'g1', 'd', '4']);
    expect(await store.replayAfter('s', first)).toEqual({ streamId: 'g1', events: [{ id: 'g1_2', data: '2' }, { id: 'g1_4', data: '4' }] });
    expect(errors).toHaveLength(1);
  });

  test('a directory finds a live node, shares one relay key, drops an unreachable node and forgets one that left', async () => {
    const keys = clusterKeys(serverId());
    const errors: unknown[] = [];
    const a = await redisSessionDirectory({ link, keys, nodeId: 'node-a', url: 'http://127.0.0.1:4001', heartbeatMs: 100 });
    const b = await redisSessionDirectory({ link, keys, nodeId: 'node-b', url: 'http://127.0.0.1:4002', cacheMs: 1, onError: (err) => errors.push(err) });
    try {
      expect(Buffer.from(a.relayKey).equals(Buffer.from(b.relayKey))).toBe(true);
      expect(a.relayKey.length).toBeGreaterThanOrEqual(16);
      expect(await b.locate('node-a')).toEqual({ nodeId: 'node-a', url: 'http://127.0.0.1:4001' });
      expect(await b.locate('node-z')).toBeUndefined();
      // The liveness record lapses unless renewed.
      const ttl = await link.command(keys.key('node', 'node-a'), ['PTTL', keys.key('node', 'node-a')]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(300);

      // Whatever else is in Redis under a node's name counts as no node, and is reported.
      await link.command(keys.key('node', 'node-x'), ['SET', keys.key('node', 'node-x'), '{"url":"file:///etc/passwd"}']);
      expect(await b.locate('node-x')).toBeUndefined();
      expect(errors).toHaveLength(1);

      // Unreachable: dropped for everyone, unless the node renewed its record with another address meanwhile.
      const c = await redisSessionDirectory({ link, keys, nodeId: 'node-c', url: 'http://127.0.0.1:4003' });
      const route = (await b.locate('node-c'))!;
      await c.advertise('http://127.0.0.1:4013');
      b.unreachable(route);
      expect(await a.locate('node-c')).toEqual({ nodeId: 'node-c', url: 'http://127.0.0.1:4013' });
      await c.close();
      const d = await redisSessionDirectory({ link, keys, nodeId: 'node-d', url: 'http://127.0.0.1:4004' });
      b.unreachable((await a.locate('node-d'))!);
      await expect.poll(() => link.command(keys.key('node', 'node-d'), ['EXISTS', keys.key('node', 'node-d')]), { timeout: 2000 }).toBe(0);
      await d.close();

      await a.close();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(await b.locate('node-a')).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('refuses a node id that cannot be carried in a session id, and a short relay key', async () => {
    const keys = clusterKeys(serverId());
    await expect(redisSessionDirectory({ link, keys, nodeId: 'a.b' })).rejects.toThrow(/nodeId/);
    await expect(redisSessionDirectory({ link, keys, nodeId: 'a', relayKey: new Uint8Array(8) })).rejects.toThrow(/relayKey/);
  });
});
