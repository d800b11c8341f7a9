/**
 * Approvals across a deployment: three servers (A, B, C) each with its own
 * redisCluster() connection to one Redis and one requestStateKeys secret. An
 * approval asked on A and answered on B runs the tool once; the same answer
 * presented again (to A or C) is asked again and never runs it; concurrent
 * retries to B and C run it exactly once; the per-holder cap counts tickets
 * on every node.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { createServer, type McpServer, type ServerOptions } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { modernRpc } from '../era/modern-helpers.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { APPROVE, ELICIT, stateOf, wipeRegistry, type WipeReply } from './wipe-approvals.js';

const SECRET = 'cluster-e2e-request-state-secret-of-40-bytes';

let redis: RedisServer;
const handles: RedisClusterHandle[] = [];
/** The side effect: every run of the tool on any node. */
const runs: string[] = [];

async function node(serverId: string, name: string, options: ServerOptions = {}): Promise<McpServer> {
  // One requestStateKeys secret for the deployment (explicit, so it wins over the ring in Redis).
  const cluster = await redisCluster({ redis: redis.url, serverId, nodeId: name, logger: silentLogger(), requestStateKeys: [SECRET] });
  handles.push(cluster);
  const registry = wipeRegistry(name, runs);
  return createServer({
    ...cluster.serverOptions,
    registry,
    name: 'notes',
    authorizer: (tool) => (tool === 'wipe' ? { ask: 'Wipe it?' } : 'allow'),
    authorizerSource: 'configured',
    logger: silentLogger(),
    ...options,
  });
}

async function call(server: McpServer, id: number, params: Record<string, unknown>): Promise<WipeReply> {
  return (await server.handleMessage(modernRpc(id, 'tools/call', { name: 'wipe', ...params }, { capabilities: ELICIT }), { connId: 'laptop' })) as WipeReply;
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const handle of handles) await handle.close();
  await redis?.stop();
});

describe('one approval ledger for three servers', () => {
  test('asked on A, answered on B: one run; the same answer again on A or C is asked again, never run', async () => {
    const serverId = `e2e-${Date.now()}`;
    const [a, b, c] = [await node(serverId, 'A'), await node(serverId, 'B'), await node(serverId, 'C')];
    runs.length = 0;
    const state = stateOf(await call(a, 1, { arguments: { what: 'disk' } }));
    const retry = { arguments: { what: 'disk' }, requestState: state, inputResponses: APPROVE };
    expect((await call(b, 2, retry)).result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'wiped disk' }] });
    expect(runs).toEqual(['B wiped disk']);
    for (const [server, id] of [[a, 3], [c, 4]] as const) {
      const again = await call(server, id, retry);
      expect(stateOf(again)).not.toBe(state);
    }
    expect(runs).toEqual(['B wiped disk']);
  });

  test('retries of one approval racing to B and C: exactly one run, 15 times over', async () => {
    const serverId = `e2e-race-${Date.now()}`;
    const [a, b, c] = [await node(serverId, 'A'), await node(serverId, 'B'), await node(serverId, 'C')];
    runs.length = 0;
    for (let round = 0; round < 15; round += 1) {
      const what = `disk${round}`;
      const state = stateOf(await call(a, 10 * round, { arguments: { what } }));
      const retry = { arguments: { what }, requestState: state, inputResponses: APPROVE };
      const replies = await Promise.all([call(b, 10 * round + 1, retry), call(c, 10 * round + 2, retry)]);
      expect(replies.map((r) => r.result.resultType).sort()).toEqual(['complete', 'input_required']);
      expect(runs.filter((r) => r.endsWith(` ${what}`))).toHaveLength(1);
    }
    expect(runs).toHaveLength(15);
  });

  test('a decline answered on another node is the deny, and the tool never runs', async () => {
    const serverId = `e2e-decline-${Date.now()}`;
    const [a, b] = [await node(serverId, 'A'), await node(serverId, 'B')];
    runs.length = 0;
    const state = stateOf(await call(a, 1, { arguments: { what: 'disk' } }));
    const reply = await call(b, 2, { arguments: { what: 'disk' }, requestState: state, inputResponses: { 'rxmcp.approve': { action: 'decline' } } });
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content![0]!.text)).toMatchObject({ decision: 'ask', detail: 'declined' });
    expect(runs).toEqual([]);
  });

  test('the per-holder cap counts tickets issued on every node', async () => {
    const serverId = `e2e-caps-${Date.now()}`;
    const caps = { maxParkedElicitations: 1, maxParkedElicitationsPerPeer: 2, maxParkedElicitationsTotal: 4 };
    const [a, b] = [await node(serverId, 'A', caps), await node(serverId, 'B', caps)];
    stateOf(await call(a, 1, { arguments: { what: 'one' } }));
    const second = await call(b, 2, { arguments: { what: 'two' } });
    expect(second.result.isError).toBe(true);
    expect(JSON.parse(second.result.content![0]!.text)).toMatchObject({ detail: 'too many elicitations pending' });
  });
});
