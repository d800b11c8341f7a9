/**
 * Legacy sessions across nodes, on real processes: three rxmcp nodes sharing
 * one Redis behind a round-robin proxy with no stickiness, driven by the
 * official SDK client (1.32.2). A session lives on the node that minted it;
 * every request for it that lands elsewhere is relayed there (answers to
 * its elicitations, cancels, the GET stream, DELETE), its SSE streams
 * resume from the Redis event store after the client's connection drops,
 * and when its node dies it is a 404 at once and the client starts over on
 * a survivor. Bounded: every wait has a limit, children are killed by PID.
 *
 * Build first (`npm run build`; npm test does): the nodes run dist/.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectRedis } from '../../cluster/redis/connect.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { startLegacyNodes, type LegacyNode } from '../helpers/legacy-nodes.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../helpers/round-robin-proxy.js';

const SERVER_ID = `legacy-relay-${process.pid}`;
const NODE_IDS = ['na', 'nb', 'nc'];

let redis: RedisServer;
let link: RedisLink;
let nodes: LegacyNode[];
let proxy: RoundRobinProxy;
const clients: Client[] = [];

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]!).text;
}

/** The index of the node a session id names; -1 for none. */
function nodeOf(sessionId: string | undefined): number {
  return NODE_IDS.indexOf(String(sessionId).split('.')[0]!);
}

function ownerIndexOf(sessionId: string | undefined): number {
  const index = nodeOf(sessionId);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

/** Sends every request of `owner`'s sessions to the other nodes, in turn: each one is relayed. */
function steerAwayFrom(owner: number): void {
  let turn = 0;
  proxy.steer = (request) => {
    if (nodeOf(request.sessionId) !== owner) return undefined;
    turn += 1;
    return (owner + 1 + (turn % 2)) % 3;
  };
}

async function connect(elicitAnswers?: { ids: unknown[] }): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'legacy-relay-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => {
    elicitAnswers?.ids.push(extra.requestId);
    return { action: 'accept', content: { approve: true } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function healthOf(node: LegacyNode): Promise<{ sessions: number }> {
  return (await (await fetch(`${node.url}/health`)).json()) as { sessions: number };
}

beforeAll(async () => {
  redis = await startRedis();
  link = await connectRedis(redis.url);
  nodes = await startLegacyNodes(redis.url, SERVER_ID, NODE_IDS);
  proxy = await startRoundRobinProxy(nodes.map((node) => node.url));
}, 30_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await proxy?.close();
  await Promise.all((nodes ?? []).map((node) => node.kill()));
  await link?.close();
  await redis?.stop();
});

describe('legacy sessions behind a round-robin proxy (no stickiness)', () => {
  test('a session minted on one node is served by it through the others', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    for (let i = 0; i < 6; i += 1) expect(text(await client.callTool({ name: 'echo', arguments: { text: String(i) } }))).toBe(`${NODE_IDS[owner]}:${i}`);
    const landed = new Set(proxy.log.filter((entry) => entry.sessionId === transport.sessionId).map((entry) => entry.backend));
    expect(landed.size).toBe(3); // round-robin took its requests to every node; the owner answered them all
  });

  test('an elicitation answered through another node is taken once; a replayed answer changes nothing', async () => {
    const asked = { ids: [] as unknown[] };
    const { client, transport } = await connect(asked);
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      const before = Number(text(await client.callTool({ name: 'runs' })));
      expect(text(await client.callTool({ name: 'deploy' }))).toBe(`deployed by ${NODE_IDS[owner]}`);
      expect(asked.ids).toHaveLength(1);
      const answers = proxy.log.filter((entry) => entry.sessionId === transport.sessionId && entry.kind === 'response');
      expect(answers.length).toBe(1);
      expect(answers[0]!.backend).not.toBe(owner);
      // The same answer again, straight to a node that does not hold the session: relayed, accepted as a message, runs nothing.
      const other = nodes[(owner + 1) % 3]!;
      const replay = await fetch(`${other.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: asked.ids[0], result: { action: 'accept', content: { approve: true } } }),
      });
      expect(replay.status).toBe(202);
      expect(Number(text(await client.callTool({ name: 'runs' })))).toBe(before + 1);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a cancel through another node aborts the call on the owner', async () => {
    const { client, transport } = await connect();
    steerAwayFrom(ownerIndexOf(transport.sessionId));
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
      await expect.poll(() => proxy.log.some((e) => e.sessionId === transport.sessionId && e.rpcMethod === 'tools/call'), { timeout: 5000 }).toBe(true);
      expect(text(await client.callTool({ name: 'slowStatus' }))).not.toBe('aborted');
      controller.abort('gave up');
      await expect(call).rejects.toThrow();
      await expect.poll(async () => text(await client.callTool({ name: 'slowStatus' })), { timeout: 5000, interval: 100 }).toBe('aborted');
      expect(proxy.log.some((e) => e.sessionId === transport.sessionId && e.rpcMethod === 'notifications/cancelled')).toBe(true);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('the GET stream through another node receives what the owner broadcasts', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        changed += 1;
      });
      expect(text(await client.callTool({ name: 'broadcast' }))).toBe('sent');
      await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
      const gets = proxy.log.filter((e) => e.sessionId === transport.sessionId && e.method === 'GET');
      expect(gets.length).toBeGreaterThanOrEqual(1);
      expect(gets.every((e) => e.backend !== owner)).toBe(true);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a POST stream cut mid-call resumes (Last-Event-ID, through another node) from the Redis event store', async () => {
    const { client, transport } = await connect();
    steerAwayFrom(ownerIndexOf(transport.sessionId));
    try {
      const progress: number[] = [];
      const call = client.callTool({ name: 'ticker' }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 20_000 });
      await expect.poll(() => progress.length, { timeout: 5000 }).toBe(1);
      const cut = proxy.cut((entry, contentType) => entry.sessionId === transport.sessionId && entry.rpcMethod === 'tools/call' && contentType.startsWith('text/event-stream'));
      expect(cut).toBe(1);
      // The rest of the call happens while the client has no stream for it: its events are only in Redis.
      expect(text(await client.callTool({ name: 'release' }))).toBe('released');
      expect(text(await call)).toBe('ticked');
      expect(progress).toEqual([1, 2, 3]);
      const resumed = proxy.log.filter((e) => e.sessionId === transport.sessionId && e.method === 'GET');
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      const key = clusterKeys(SERVER_ID).key('events', transport.sessionId!);
      expect(Number(await link.command(key, ['XLEN', key]))).toBeGreaterThanOrEqual(4);
    } finally {
      proxy.steer = undefined;
    }
  }, 30_000);

  test('DELETE through another node ends the session on its owner', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    const sessionId = transport.sessionId!;
    const before = (await healthOf(nodes[owner]!)).sessions;
    steerAwayFrom(owner);
    try {
      await transport.terminateSession();
      expect(proxy.log.some((e) => e.sessionId === sessionId && e.method === 'DELETE' && e.backend !== owner)).toBe(true);
      expect((await healthOf(nodes[owner]!)).sessions).toBe(before - 1);
      const after = await fetch(`${proxy.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(after.status).toBe(404);
      await client.close();
    } finally {
      proxy.steer = undefined;
    }
  });

  test('legacy HTTP+SSE: messages POSTed to other nodes reach the stream on its node', async () => {
    const client = new Client({ name: 'legacy-sse-relay-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
    await client.connect(new SSEClientTransport(new URL(`${proxy.url}/sse`)));
    clients.push(client);
    const post = proxy.log.find((e) => e.url.startsWith('/messages'))!;
    const owner = ownerIndexOf(post.sessionId);
    steerAwayFrom(owner);
    try {
      for (let i = 0; i < 4; i += 1) expect(text(await client.callTool({ name: 'echo', arguments: { text: `s${i}` } }))).toBe(`${NODE_IDS[owner]}:s${i}`);
      expect(text(await client.callTool({ name: 'deploy' }))).toBe(`deployed by ${NODE_IDS[owner]}`);
      const posts = proxy.log.filter((e) => e.sessionId === post.sessionId && e.method === 'POST');
      expect(posts.filter((e) => e.backend !== owner).length).toBeGreaterThanOrEqual(6);
      await client.close();
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a relay header not signed by the deployment is refused', async () => {
    const response = await fetch(`${nodes[0]!.url}/mcp`, {
      method: 'DELETE',
      headers: { 'mcp-session-id': 'nb.mcp-x', 'x-rxmcp-relay': `v1.nb.na.${Date.now()}.bm9uY2U.cGVlcg.AAAA` },
    });
    expect(response.status).toBe(403);
  });

  test('its node killed, a session answers 404 at once and the client starts over on a survivor', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    await nodes[owner]!.kill();
    const started = performance.now();
    const failure = await client.callTool({ name: 'echo', arguments: { text: 'anyone?' } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const elapsed = performance.now() - started;
    expect((failure as { code?: unknown }).code).toBe(404);
    expect(elapsed).toBeLessThan(3000); // the relay's connect was refused: no waiting for the liveness record to lapse
    proxy.steer = undefined;
    await client.close();
    const again = await connect();
    const survivor = ownerIndexOf(again.transport.sessionId);
    expect(survivor).not.toBe(owner);
    expect(text(await again.client.callTool({ name: 'echo', arguments: { text: 'back' } }))).toBe(`${NODE_IDS[survivor]}:back`);
    // Its liveness record was dropped by the node that found it unreachable.
    const record = clusterKeys(SERVER_ID).key('node', NODE_IDS[owner]!);
    expect(await link.command(record, ['EXISTS', record])).toBe(0);
  }, 30_000);
});
