/**
 * The requestState key ring in Redis: processes starting together on an
 * empty deployment end with one ring (one Redis and a 3-node Cluster); a
 * state sealed by one server opens on another (a real MRTR round trip:
 * input_required from A, the retry with inputResponses served by B); a
 * rotation keeps old states open until their secret is dropped; what Redis
 * holds is checked; explicitly configured requestStateKeys win.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { loadRequestStateKeys, requestStateKeysKey, rotateRequestStateKey } from '../../cluster/redis/key-ring.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { ELICIT, modern, mrtrServer, stateOf } from '../mrtr/modern-fixture.js';
import { REDIS_TOPOLOGIES, redisTopologyForSuite, startRedisTopology, type RedisTopology } from '../helpers/redis-server.js';
import { recordingLogger, uniqueServerId } from './redis-bus-helpers.js';

const INVALID = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };
const hex = (secrets: readonly Uint8Array[]) => secrets.map((s) => Buffer.from(s).toString('hex'));
const NAME = { 'rxmcp.1': { action: 'accept', content: { name: 'Ada' } } };

describe.each(REDIS_TOPOLOGIES)('the key ring on %s', (_name, clustered) => {
  let links: RedisLink[] = [];
  redisTopologyForSuite(clustered, async (redis) => {
    links = await redis.links(5);
  });

  test('five processes starting at once on an empty deployment end with one ring of one 32-byte secret', async () => {
    const keys = clusterKeys(uniqueServerId('ring-race'));
    const rings = await Promise.all(links.map((link) => loadRequestStateKeys(link, keys)));
    expect(new Set(rings.map((ring) => JSON.stringify(hex(ring)))).size).toBe(1);
    expect(rings[0]).toHaveLength(1);
    expect(rings[0]![0]).toHaveLength(32);
    expect(await links[0]!.command(requestStateKeysKey(keys), ['LLEN', requestStateKeysKey(keys)])).toBe(1);
  });

  test('rotation puts a new secret first and keeps at most `keep`', async () => {
    const keys = clusterKeys(uniqueServerId('ring-rotate'));
    const [first] = hex(await loadRequestStateKeys(links[0]!, keys));
    const second = hex(await rotateRequestStateKey(links[1]!, keys));
    expect(second).toHaveLength(2);
    expect(second[1]).toBe(first);
    const third = hex(await rotateRequestStateKey(links[2]!, keys, { keep: 2 }));
    expect(third).toEqual([expect.any(String), second[0]]);
    expect(hex(await loadRequestStateKeys(links[3]!, keys))).toEqual(third);
    expect(hex(await rotateRequestStateKey(links[3]!, keys, { keep: 1 }))).toHaveLength(1);
    await expect(rotateRequestStateKey(links[0]!, keys, { keep: 0 })).rejects.toThrow(/keep/);
    await expect(rotateRequestStateKey(links[0]!, keys, { keep: 17 })).rejects.toThrow(/keep/);
  });
});

describe('the key ring behind MRTR across servers', () => {
  let redis: RedisTopology;
  let link: RedisLink;
  const handles: RedisClusterHandle[] = [];

  beforeAll(async () => {
    redis = await startRedisTopology(false);
    link = await redis.link();
  }, 30_000);

  afterAll(async () => {
    for (const handle of handles) await handle.close().catch(() => undefined);
    await redis?.stop();
  });

  /** A server of deployment `serverId` as a new process would start: its own redisCluster handle. */
  async function node(serverId: string, extra: { requestStateKeys?: string[] } = {}) {
    const handle = await redisCluster({ redis: redis.target, serverId, logger: recordingLogger(), ...extra });
    handles.push(handle);
    return mrtrServer({ ...handle.serverOptions }).server;
  }

  const ask = (server: Awaited<ReturnType<typeof node>>, id: number) => modern(server, id, 'tools/call', { name: 'ask_name' }, { capabilities: ELICIT });
  const retry = (server: Awaited<ReturnType<typeof node>>, id: number, state: string) =>
    modern(server, id, 'tools/call', { name: 'ask_name', requestState: state, inputResponses: NAME }, { capabilities: ELICIT });

  test('input_required from A, the retry with the answer served by B', async () => {
    const serverId = uniqueServerId('ring-mrtr');
    const [a, b] = [await node(serverId), await node(serverId)];
    const state = stateOf(await ask(a, 1));
    const done = await retry(b, 2, state);
    expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello Ada' }] });
    // Another deployment has another ring: the state means nothing there.
    const stranger = await node(uniqueServerId('ring-other'));
    expect((await retry(stranger, 3, state)).error).toEqual(INVALID);
  });

  test('after a rotation old states open until their secret is dropped; a process opens what its ring holds', async () => {
    const serverId = uniqueServerId('ring-mrtr-rotate');
    const keys = clusterKeys(serverId);
    const before = await node(serverId);
    const oldState = stateOf(await ask(before, 1));
    await rotateRequestStateKey(link, keys, { keep: 2 });
    const after = await node(serverId);
    // The restarted process opens the old state and seals with the new secret.
    expect((await retry(after, 2, oldState)).result?.resultType).toBe('complete');
    const newState = stateOf(await ask(after, 3));
    // A process still on the old ring cannot open a state sealed with a secret it never loaded (hence: restart after a rotation).
    expect((await retry(before, 4, newState)).error).toEqual(INVALID);
    await rotateRequestStateKey(link, keys, { keep: 2 });
    const later = await node(serverId);
    expect((await retry(later, 5, newState)).result?.resultType).toBe('complete');
    expect((await retry(later, 6, oldState)).error).toEqual(INVALID);
  });

  test('explicit requestStateKeys win: the ring in Redis is neither read nor created', async () => {
    const serverId = uniqueServerId('ring-explicit');
    const secret = 'an-operator-secret-of-at-least-32-bytes!';
    const handle = await redisCluster({ redis: redis.target, serverId, requestStateKeys: [secret] });
    handles.push(handle);
    expect(handle.serverOptions.requestStateKeys).toEqual([secret]);
    const key = requestStateKeysKey(clusterKeys(serverId));
    expect(await link.command(key, ['EXISTS', key])).toBe(0);
    // And it works with another process configured the same way.
    const [a, b] = [await node(serverId, { requestStateKeys: [secret] }), await node(serverId, { requestStateKeys: [secret] })];
    expect((await retry(b, 2, stateOf(await ask(a, 1)))).result?.resultType).toBe('complete');
  });

  test('what Redis holds is checked: bad entries are logged and skipped; a ring with none usable refuses to start', async () => {
    const keys = clusterKeys(uniqueServerId('ring-bad'));
    const key = requestStateKeysKey(keys);
    const good = Buffer.alloc(32, 7).toString('base64');
    const short = Buffer.alloc(16, 1).toString('base64');
    const huge = Buffer.alloc(2048, 2).toString('base64');
    await link.command(key, ['RPUSH', key, 'not base64 at all!', short, good, huge, good, Buffer.alloc(40, 3).toString('base64url')]);
    const logger = recordingLogger();
    const ring = await loadRequestStateKeys(link, keys, { logger });
    expect(hex(ring)).toEqual([Buffer.alloc(32, 7).toString('hex')]);
    expect(logger.lines.map(([level, fields]) => [level, (fields as { index: number }).index])).toEqual([
      ['warn', 0],
      ['warn', 1],
      ['warn', 3],
      ['warn', 4],
      ['warn', 5],
    ]);

    const emptyKeys = clusterKeys(uniqueServerId('ring-unusable'));
    const emptyKey = requestStateKeysKey(emptyKeys);
    await link.command(emptyKey, ['RPUSH', emptyKey, short]);
    await expect(loadRequestStateKeys(link, emptyKeys, { logger: recordingLogger() })).rejects.toThrow(/no usable secret/);
    await expect(redisCluster({ redis: redis.target, serverId: emptyKeys.serverId, logger: recordingLogger() })).rejects.toThrow(/no usable secret/);

    const wrongKeys = clusterKeys(uniqueServerId('ring-wrongtype'));
    const wrongKey = requestStateKeysKey(wrongKeys);
    await link.command(wrongKey, ['SET', wrongKey, good]);
    await expect(loadRequestStateKeys(link, wrongKeys)).rejects.toThrow(/is not a list/);
  });
});
