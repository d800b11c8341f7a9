/**
 * Issue 17 (part 3): an approved MRTR retry keeps its permit. Two servers
 * on one Redis with cluster-wide permits (6 in all, 3 per principal) and
 * one approval ledger; one principal on one client asks, then sends 10
 * retries presenting the one answer at once, spread over both servers.
 * The retries that get a permit race for the ticket while holding it, so
 * the winner's run is never refused a permit the losers hold: exactly one
 * run every round, the rest asked again (a fresh ticket) or busy (refused
 * a permit before the take, the ticket untouched). Real time, bounded.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { permitKeys } from '../../cluster/redis/permits.js';
import { createServer, makePrincipal, type McpServer } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { modernRpc } from '../era/modern-helpers.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { APPROVE, ELICIT, stateOf, wipeRegistry, type WipeReply } from './wipe-approvals.js';
import { until, zcard } from './permit-helpers.js';

const SECRET = 'permit-race-request-state-secret-of-40-bytes';
const ROUNDS = 25;
const AUTHORIZER_MS = 3;
const APART_MS = 1;
const RETRIES = 10;
const alice = makePrincipal({ kind: 'local', subject: 'alice' });

let redis: RedisServer;
const handles: RedisClusterHandle[] = [];
/** The side effect: every run of the tool, on either server. */
const runs: string[] = [];

async function node(serverId: string, nodeId: string): Promise<McpServer> {
  const cluster = await redisCluster({
    redis: redis.url,
    serverId,
    nodeId,
    logger: silentLogger(),
    requestStateKeys: [SECRET],
    permits: { maxInFlight: 6, maxInFlightPerPrincipal: 3 },
  });
  handles.push(cluster);
  // A run that takes a moment holds its permit while the other retries are still arriving.
  const registry = wipeRegistry(nodeId, runs, () => new Promise((resolve) => setImmediate(resolve)));
  return createServer({
    ...cluster.serverOptions,
    registry,
    name: 'notes',
    // A policy lookup that takes a moment: a retry holds its permit through it, as a real one would.
    authorizer: async (tool) => {
      await sleep(AUTHORIZER_MS);
      return tool === 'wipe' ? { ask: 'Wipe it?' } : 'allow';
    },
    authorizerSource: 'configured',
    logger: silentLogger(),
    // Every round leaves its losers' fresh tickets outstanding, all alice's: room for all of them.
    maxParkedElicitationsPerPeer: 1024,
    maxParkedElicitationsTotal: 1024,
  });
}

/** One modern tools/call of `wipe` by alice on `client` (the ticket's holder). */
async function call(server: McpServer, id: number, client: string, params: Record<string, unknown>): Promise<WipeReply> {
  const message = modernRpc(id, 'tools/call', { name: 'wipe', ...params }, { capabilities: ELICIT });
  return (await server.handleMessage(message, { connId: client, principal: alice })) as WipeReply;
}

/** What a retry was answered: the run, asked again, or busy (and with which cap). */
function kindOf(reply: WipeReply): string {
  if (reply.result.resultType === 'input_required') return 'asked again';
  const text = reply.result.content?.[0]?.text ?? '';
  if (text.startsWith('wiped ')) return 'ran';
  if (text === 'Error: server_busy') return `busy ${String((reply.result._meta?.['rxmcp/busy'] as { scope?: string } | undefined)?.scope)}`;
  return `other: ${JSON.stringify(reply.result)}`;
}

beforeAll(async () => {
  redis = await startRedis();
}, 30_000);

afterAll(async () => {
  for (const handle of handles) await handle.close();
  await redis?.stop();
});

describe('concurrent approved retries under clusterPermits (cap 6, 3 per principal)', () => {
  test(`${RETRIES} retries of one approval from one client: exactly one run, ${ROUNDS} rounds`, async () => {
    const serverId = `permit-race-${process.pid}-${Date.now()}`;
    const servers = [await node(serverId, 'A'), await node(serverId, 'B')];
    const aliceKey = permitKeys(handles.at(-1)!.keys).owner(`principal:${alice.key}`);
    runs.length = 0;
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round += 1) {
      // A client per round: its asked-again tickets do not fill the next round's per-holder cap.
      const client = `laptop-${round}`;
      const what = `disk${round}`;
      const state = stateOf(await call(servers[0]!, 1000 * round, client, { arguments: { what } }));
      const retry = { arguments: { what }, requestState: state, inputResponses: APPROVE };
      // Arriving a little apart, as over a network: later ones take the permits earlier ones give back.
      const pending: Array<Promise<WipeReply>> = [];
      for (let i = 0; i < RETRIES; i += 1) {
        pending.push(call(servers[i % 2]!, 1000 * round + i + 1, client, retry));
        await sleep(APART_MS);
      }
      const replies = await Promise.all(pending);
      const kinds = replies.map(kindOf);
      for (const kind of kinds) seen.add(kind);
      expect({ round, runs: runs.filter((r) => r.endsWith(` ${what}`)).length }).toEqual({ round, runs: 1 });
      expect(kinds.filter((k) => k === 'ran')).toHaveLength(1);
      // Every other retry is asked again or refused a permit before its take: nothing else.
      expect(kinds.filter((k) => k !== 'ran' && k !== 'asked again' && k !== 'busy principal')).toEqual([]);
      // The permits are all given back (a release runs just after the reply) before the next round asks.
      await until('alice holds no permits', async () => ((await zcard(handles[0]!.link, aliceKey)) === 0 ? true : undefined), 2000);
    }
    expect(runs).toHaveLength(ROUNDS);
    // The race was real: losers were asked again.
    expect(seen.has('asked again')).toBe(true);
  }, 30_000);
});
