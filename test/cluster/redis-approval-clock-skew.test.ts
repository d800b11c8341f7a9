/**
 * One clock for approval expiry across nodes whose clocks disagree: two
 * servers on one real Redis, the second with a scheduler 1.5 s ahead, and
 * 2 s tickets. The ledger's clock (Redis TIME) decides expiry; the sealed
 * state's own expiry (set on the issuing node's clock) is only a bound,
 * relaxed by the ledger's stated clockSkewMs. So:
 * - a ticket issued on the normal node and redeemed on the fast one well
 *   inside its 2 s runs (the fast node reads it as past its sealed expiry);
 * - a ticket issued on the fast node and redeemed on the normal one after
 *   the ledger's 2 s gets the `timed out` deny, even once another caller's
 *   ask has purged it from the ledger (its sealed expiry, 1.5 s later on the
 *   normal node's clock, still lets it open), never a fresh question.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { createServer, type McpServer } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { modernRpc } from '../era/modern-helpers.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { APPROVE, ELICIT, stateOf, wipeRegistry, type WipeReply } from './wipe-approvals.js';

const SECRET = 'clock-skew-request-state-secret-of-40-bytes';
const TTL_MS = 2000;
const AHEAD_MS = 1500;

/** asyncScheduler's timers, with a clock AHEAD_MS ahead: a node whose wall clock runs fast. */
const fastClock: SchedulerLike = {
  now: () => asyncScheduler.now() + AHEAD_MS,
  schedule: asyncScheduler.schedule.bind(asyncScheduler),
};

let redis: RedisServer;
const handles: RedisClusterHandle[] = [];
const runs: string[] = [];

async function node(serverId: string, name: string, scheduler: SchedulerLike): Promise<McpServer> {
  const cluster = await redisCluster({ redis: redis.url, serverId, nodeId: name, logger: silentLogger(), requestStateKeys: [SECRET] });
  handles.push(cluster);
  const registry = wipeRegistry(name, runs);
  return createServer({
    ...cluster.serverOptions,
    registry,
    name: 'notes',
    scheduler,
    approvalTtlMs: TTL_MS,
    authorizer: (tool) => (tool === 'wipe' ? { ask: 'Wipe it?' } : 'allow'),
    authorizerSource: 'configured',
    logger: silentLogger(),
  });
}

async function call(server: McpServer, id: number, params: Record<string, unknown>, connId = 'laptop'): Promise<WipeReply> {
  return (await server.handleMessage(modernRpc(id, 'tools/call', { name: 'wipe', ...params }, { capabilities: ELICIT }), { connId })) as WipeReply;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const handle of handles) await handle.close();
  await redis?.stop();
});

describe('approval expiry on the ledger clock, with one node 1.5 s ahead', () => {
  test('issued on the normal node, redeemed on the fast one at ~0.8 s of 2 s: it runs', async () => {
    const serverId = `skew-a-${Date.now()}`;
    const [normal, fast] = [await node(serverId, 'N', asyncScheduler), await node(serverId, 'F', fastClock)];
    runs.length = 0;
    const state = stateOf(await call(normal, 1, { arguments: { what: 'disk' } }));
    await sleep(800);
    // The fast node reads now as ~2.3 s after issue: past the sealed 2 s, but the ledger (Redis TIME) says ~0.8 s.
    const reply = await call(fast, 2, { arguments: { what: 'disk' }, requestState: state, inputResponses: APPROVE });
    expect(reply.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'wiped disk' }] });
    expect(runs).toEqual(['F wiped disk']);
  });

  test('issued on the fast node, redeemed on the normal one after the ledger ttl: the `timed out` deny, not a new ask', async () => {
    const serverId = `skew-b-${Date.now()}`;
    const [normal, fast] = [await node(serverId, 'N', asyncScheduler), await node(serverId, 'F', fastClock)];
    runs.length = 0;
    const state = stateOf(await call(fast, 1, { arguments: { what: 'disk' } }));
    await sleep(TTL_MS + 300);
    // Another caller's ask: its script purges the expired ticket from the ledger, as traffic does in any deployment.
    stateOf(await call(normal, 2, { arguments: { what: 'other' } }, 'desktop'));
    // On the normal node the sealed expiry is still ~1.2 s away, so only the ledger can tell this retry it is late.
    const reply = await call(normal, 3, { arguments: { what: 'disk' }, requestState: state, inputResponses: APPROVE });
    expect(reply.result.resultType).not.toBe('input_required');
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content![0]!.text)).toMatchObject({ decision: 'ask', detail: 'timed out' });
    // A retry without an answer (a reissue) is told the same.
    const bare = await call(normal, 4, { arguments: { what: 'disk' }, requestState: state });
    expect(JSON.parse(bare.result.content![0]!.text)).toMatchObject({ decision: 'ask', detail: 'timed out' });
    expect(runs).toEqual([]);
  });
});
