/**
 * Legacy sessions across nodes, on real processes: the cluster example's
 * three nodes sharing one Redis behind its round-robin proxy with no
 * stickiness (steered and watched through its hooks), driven by the
 * official SDK client (1.32.2). A session lives on the node that minted it;
 * every request for it that lands elsewhere is relayed there (answers to
 * its elicitations, cancels, the GET stream, DELETE), its SSE streams
 * resume from the Redis event store after the client's connection drops,
 * and when its node dies it is a 404 at once and the client starts over on
 * a survivor. Bounded: every wait has a limit, children are killed by PID.
 *
 * Build first (`npm run build`; npm test does): the nodes run dist/.
 * The example's tools say which node ran them (whoami, greet, survey,
 * delete_note) or leave it in Redis (delete_note's runs, hold's gauge).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { NOTES_URI } from '../../examples/cluster/server.js';
import { clusterPerFile, type ClusterNode } from '../helpers/cluster-harness.js';
import { proxyTap } from '../helpers/proxy-tap.js';

const NODE_IDS = ['a', 'b', 'c'];

const proxy = proxyTap();
const cluster = clusterPerFile({ nodes: 3, nodeArgs: ['--cluster-options', JSON.stringify({ legacy: { heartbeatMs: 500 } })], proxyHooks: proxy.hooks });
let nodes: readonly ClusterNode[];
const clients: Client[] = [];

function text(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0]!).text;
}

/** The node a whoami call ran on. */
async function whoami(client: Client): Promise<string> {
  return (JSON.parse(text(await client.callTool({ name: 'whoami', arguments: {} }))) as { node: string }).node;
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
  proxy.steer = (sessionId) => {
    if (nodeOf(sessionId) !== owner) return undefined;
    turn += 1;
    return (owner + 1 + (turn % 2)) % 3;
  };
}

/** What the client answers an elicitation with: by default, approve (delete_note's approval). */
type Answerer = (message: string) => Promise<{ action: 'accept'; content: Record<string, string | boolean> }>;

async function connect(
  elicitAnswers?: { ids: unknown[] },
  answer: Answerer = async () => ({ action: 'accept', content: { approve: true } }),
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'legacy-relay-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    elicitAnswers?.ids.push(extra.requestId);
    return answer(request.params.message);
  });
  const transport = new StreamableHTTPClientTransport(new URL(cluster.url));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

async function healthOf(node: ClusterNode): Promise<{ sessions: number }> {
  return (await (await fetch(`${node.origin}/health`)).json()) as { sessions: number };
}

beforeAll(() => {
  nodes = cluster.nodes;
  expect(nodes.map((node) => node.id)).toEqual(NODE_IDS);
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
});

describe('legacy sessions behind a round-robin proxy (no stickiness)', () => {
  test('a session minted on one node is served by it through the others', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    for (let i = 0; i < 6; i += 1) expect(await whoami(client)).toBe(NODE_IDS[owner]);
    const landed = new Set(proxy.log.filter((entry) => entry.sessionId === transport.sessionId).map((entry) => entry.backend));
    expect(landed.size).toBe(3); // round-robin took its requests to every node; the owner answered them all
  });

  test('an elicitation answered through another node is taken once; a replayed answer changes nothing', async () => {
    const asked = { ids: [] as unknown[] };
    const { client, transport } = await connect(asked);
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      const note = 'relay-replay';
      expect(text(await client.callTool({ name: 'add_note', arguments: { id: note, text: 'to delete' } }))).toBe(`Added note ${note} on ${NODE_IDS[owner]}`);
      expect(await cluster.ledger.runs(`delete.${note}`)).toEqual([]);
      expect(text(await client.callTool({ name: 'delete_note', arguments: { id: note } }))).toBe(`Deleted note ${note} on ${NODE_IDS[owner]}`);
      expect(asked.ids).toHaveLength(1);
      const answers = proxy.log.filter((entry) => entry.sessionId === transport.sessionId && entry.kind === 'response');
      expect(answers.length).toBe(1);
      expect(answers[0]!.backend).not.toBe(owner);
      // The same answer again, straight to a node that does not hold the session: relayed, accepted as a message, runs nothing.
      const other = nodes[(owner + 1) % 3]!;
      const replay = await fetch(other.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: asked.ids[0], result: { action: 'accept', content: { approve: true } } }),
      });
      expect(replay.status).toBe(202);
      expect(await whoami(client)).toBe(NODE_IDS[owner]); // a round trip to the owner after the replay
      expect(await cluster.ledger.runs(`delete.${note}`)).toEqual([NODE_IDS[owner]]);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a cancel through another node aborts the call on the owner', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      const controller = new AbortController();
      // hold counts itself in the gauge while it waits (a minute, unless aborted) and out when it ends.
      const call = client.callTool({ name: 'hold', arguments: { ms: 60_000 } }, undefined, { signal: controller.signal, timeout: 70_000 });
      await expect.poll(() => proxy.log.some((e) => e.sessionId === transport.sessionId && e.rpcMethod === 'tools/call'), { timeout: 5000 }).toBe(true);
      await expect.poll(() => cluster.ledger.running(), { timeout: 5000, interval: 100 }).toEqual([expect.stringMatching(new RegExp(`^${NODE_IDS[owner]}\\|`))]);
      controller.abort('gave up');
      await expect(call).rejects.toThrow();
      await expect.poll(() => cluster.ledger.running(), { timeout: 5000, interval: 100 }).toEqual([]);
      expect(proxy.log.some((e) => e.sessionId === transport.sessionId && e.rpcMethod === 'notifications/cancelled')).toBe(true);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('the GET stream through another node receives what the owner sends outside any request', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      let changed = 0;
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        if (notification.params.uri === NOTES_URI) changed += 1;
      });
      await client.subscribeResource({ uri: NOTES_URI });
      expect(text(await client.callTool({ name: 'add_note', arguments: { id: 'relay-get', text: 'heard' } }))).toBe(`Added note relay-get on ${NODE_IDS[owner]}`);
      await expect.poll(() => changed, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
      const gets = proxy.log.filter((e) => e.sessionId === transport.sessionId && e.method === 'GET');
      expect(gets.length).toBeGreaterThanOrEqual(1);
      expect(gets.every((e) => e.backend !== owner)).toBe(true);
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a POST stream cut mid-call resumes (Last-Event-ID, through another node) from the Redis event store', async () => {
    // The survey's second question waits for the test: the stream is cut while the user "thinks".
    const asked: string[] = [];
    let answerSecond: (() => void) | undefined;
    const secondAnswered = new Promise<void>((resolve) => (answerSecond = resolve));
    const { client, transport } = await connect(undefined, async (message) => {
      asked.push(message);
      if (message.startsWith('Question 2 ')) await secondAnswered;
      return { action: 'accept', content: { answer: `a${asked.length}` } };
    });
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    try {
      const progress: number[] = [];
      const call = client.callTool({ name: 'survey', arguments: { questions: 3 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 20_000 });
      await expect.poll(() => asked.length, { timeout: 5000 }).toBe(2);
      expect(progress).toEqual([1]);
      const cut = proxy.cut((entry, contentType) => entry.sessionId === transport.sessionId && entry.rpcMethod === 'tools/call' && contentType.startsWith('text/event-stream'));
      expect(cut).toBe(1);
      // The rest of the call (progress 2, question 3, progress 3, the result) happens while the client has no stream for it: its events are only in Redis.
      answerSecond!();
      expect(text(await call)).toBe(`Answers a1, a2, a3 on ${NODE_IDS[owner]}`);
      expect(progress).toEqual([1, 2, 3]);
      expect(asked).toEqual(['Question 1 of 3?', 'Question 2 of 3?', 'Question 3 of 3?']);
      const resumed = proxy.log.filter((e) => e.sessionId === transport.sessionId && e.method === 'GET');
      expect(resumed.length).toBeGreaterThanOrEqual(1);
      const key = cluster.keys.key('events', transport.sessionId!);
      expect(Number(await cluster.link.command(key, ['XLEN', key]))).toBeGreaterThanOrEqual(4);
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
      const after = await fetch(cluster.url, {
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
    await client.connect(new SSEClientTransport(new URL(cluster.sseUrl)));
    clients.push(client);
    const post = proxy.log.find((e) => e.url.startsWith('/messages'))!;
    const owner = ownerIndexOf(post.sessionId);
    steerAwayFrom(owner);
    try {
      for (let i = 0; i < 4; i += 1) expect(await whoami(client)).toBe(NODE_IDS[owner]);
      expect(text(await client.callTool({ name: 'add_note', arguments: { id: 'relay-sse', text: 'to delete' } }))).toBe(`Added note relay-sse on ${NODE_IDS[owner]}`);
      expect(text(await client.callTool({ name: 'delete_note', arguments: { id: 'relay-sse' } }))).toBe(`Deleted note relay-sse on ${NODE_IDS[owner]}`);
      expect(await cluster.ledger.runs('delete.relay-sse')).toEqual([NODE_IDS[owner]]);
      const posts = proxy.log.filter((e) => e.sessionId === post.sessionId && e.method === 'POST');
      expect(posts.filter((e) => e.backend !== owner).length).toBeGreaterThanOrEqual(6);
      await client.close();
    } finally {
      proxy.steer = undefined;
    }
  });

  test('a relay header not signed by the deployment is refused', async () => {
    const response = await fetch(nodes[0]!.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': 'b.mcp-x', 'x-rxmcp-relay': `v1.b.a.${Date.now()}.bm9uY2U.cGVlcg.AAAA` },
    });
    expect(response.status).toBe(403);
  });

  test('its node killed, a session answers 404 at once and the client starts over on a survivor', async () => {
    const { client, transport } = await connect();
    const owner = ownerIndexOf(transport.sessionId);
    steerAwayFrom(owner);
    await cluster.kill(NODE_IDS[owner]!);
    const started = performance.now();
    const failure = await client.callTool({ name: 'whoami', arguments: {} }).then(
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
    expect(await whoami(again.client)).toBe(NODE_IDS[survivor]);
    // Its liveness record was dropped by the node that found it unreachable.
    const record = cluster.keys.key('node', NODE_IDS[owner]!);
    expect(await cluster.link.command(record, ['EXISTS', record])).toBe(0);
  }, 30_000);
});
