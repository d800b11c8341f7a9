/**
 * Cluster-wide permits through servers: two createServer instances, each
 * with its own redisCluster({ permits }) handle on one Redis (so each its
 * own connection and node), maxInFlightPerPrincipal 2. Three slow calls by
 * one principal spread over both are answered: two run, exactly one is busy
 * with scope principal; another principal is served meanwhile; and once the
 * calls end, their permits are back. Real time, bounded waits.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { permitKeys } from '../../cluster/redis/permits.js';
import { createServer, makePrincipal, Registry, type McpServer, type Principal } from '../../lib/index.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { uniqueKeys, until, zcard } from './permit-helpers.js';

let redis: RedisServer;

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  await redis?.stop();
});

describe('through two servers sharing one Redis (redisCluster with permits)', () => {
  const handles: RedisClusterHandle[] = [];
  let servers: McpServer[];
  const alice = makePrincipal({ kind: 'local', subject: 'alice' });
  const bob = makePrincipal({ kind: 'local', subject: 'bob' });
  const gates: Array<() => void> = [];

  beforeAll(async () => {
    const serverId = uniqueKeys().serverId;
    const registry = new Registry()
      .registerTool({ name: 'slow', handler: () => new Promise<string>((resolve) => gates.push(() => resolve('done'))) })
      .registerResource({ uri: 'mem://doc', name: 'doc', read: () => 'text' });
    for (const nodeId of ['s1', 's2']) {
      handles.push(await redisCluster({ redis: redis.url, serverId, nodeId, permits: { maxInFlightPerPrincipal: 2 } }));
    }
    servers = handles.map((handle) => createServer({ registry, ...handle.serverOptions }));
  });

  afterAll(async () => {
    for (const open of gates.splice(0)) open();
    for (const handle of handles) await handle.close();
  });

  const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
  const send = (server: McpServer, message: unknown, principal: Principal) =>
    server.request(message, `conn-${(message as { id: number }).id}`, { principal }).reply;

  test('three slow calls by one principal over both servers: exactly one busy with scope principal; another principal is served', async () => {
    const replies = [send(servers[0]!, call(1, 'slow'), alice), send(servers[1]!, call(2, 'slow'), alice), send(servers[0]!, call(3, 'slow'), alice)];
    const busy = await Promise.race(replies);
    expect(busy).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      result: { content: [{ type: 'text', text: 'Error: server_busy' }], isError: true, _meta: { 'rxmcp/busy': { scope: 'principal' } } },
    });
    // Alice's read is refused too (her two permits are held), as -32603 with data.scope.
    expect(await servers[1]!.handleMessage({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'mem://doc' } }, { principal: alice })).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, message: 'MCP callback failed', data: { error: 'server_busy', method: 'resources/read', scope: 'principal' } },
    });
    // Bob is another principal: served on either server while Alice is at her cap.
    expect(await servers[1]!.handleMessage({ jsonrpc: '2.0', id: 10, method: 'resources/read', params: { uri: 'mem://doc' } }, { principal: bob })).toMatchObject({
      id: 10,
      result: { contents: [{ uri: 'mem://doc', text: 'text' }] },
    });
    await until('the two admitted calls to start', async () => (gates.length === 2 ? true : undefined), 2000);
    for (const open of gates.splice(0)) open();
    const all = await Promise.all(replies);
    expect(all.filter((r) => JSON.stringify(r).includes('server_busy'))).toHaveLength(1);
    expect(all.filter((r) => JSON.stringify(r).includes('"done"'))).toHaveLength(2);
    // The finished calls gave their permits back (the release runs just after the reply): Alice is served again.
    const aliceKey = permitKeys(handles[0]!.keys).owner(`principal:${alice.key}`);
    await until('the releases', async () => ((await zcard(handles[0]!.link, aliceKey)) === 0 ? true : undefined), 2000);
    const again = send(servers[1]!, call(4, 'slow'), alice);
    await until('the next call to start', async () => (gates.length === 1 ? true : undefined), 2000);
    gates.splice(0)[0]!();
    expect(await again).toMatchObject({ id: 4, result: { content: [{ type: 'text', text: 'done' }] } });
  }, 15_000);
});
