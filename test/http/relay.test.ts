/**
 * The relay between two handlers in one process, with an in-memory session
 * directory (the Redis one is tested in test/cluster): the signed relay
 * header (signature, time window, one use), the loop guard, an owner that
 * is not found or refuses the connection (a 404 at once, reported), and the
 * principal binding holding through the relay (the owner authenticates the
 * forwarded token itself).
 */
import { createServer as createTcpServer } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { Registry, staticTokens } from '../../lib/index.js';
import { RELAY_WINDOW_MS, RelayVerifier, signRelay } from '../../transports/http/relay.js';
import type { SessionDirectory, SessionRoute } from '../../lib/ports/session-directory.js';
import type { McpServer } from '../../lib/index.js';
import { createServer } from '../../lib/index.js';
import type { HttpHandlerOptions } from '../../transports/index.js';
import { mountExpress, mountFetch, type MountedApp } from '../frameworks/mounts.js';
import { initializeMessage, postJson, serve, SseReader } from './helpers.js';

const KEY = new Uint8Array(32).fill(7);

describe('the relay header', () => {
  test('is believed once, by its node, signed by the key, for its method, within its window', () => {
    const verifier = new RelayVerifier(KEY, 'nb');
    const now = 1_000_000;
    const header = signRelay(KEY, 'na', 'nb', 'POST', 'addr:10.0.0.1', now);
    expect(verifier.check(header, 'POST', now + 5)).toEqual({ ok: true, fromNode: 'na', peer: 'addr:10.0.0.1' });
    expect(verifier.check(header, 'POST', now + 5)).toMatchObject({ ok: false, reason: 'relay header replayed' });
    expect(new RelayVerifier(KEY, 'nc').check(header, 'POST', now)).toMatchObject({ ok: false, reason: 'relay header signed for another node' });
    expect(new RelayVerifier(KEY, 'nb').check(header, 'DELETE', now)).toMatchObject({ ok: false });
    expect(new RelayVerifier(new Uint8Array(32).fill(8), 'nb').check(header, 'POST', now)).toMatchObject({ ok: false });
    expect(new RelayVerifier(KEY, 'nb').check(header, 'POST', now + RELAY_WINDOW_MS + 1)).toMatchObject({ ok: false, reason: 'relay header outside its time window' });
    for (const at of [1, 2, 5]) {
      const parts = header.split('.');
      parts[at] = at === 5 ? Buffer.from('addr:forged').toString('base64url') : 'nx';
      expect(new RelayVerifier(KEY, 'nb').check(parts.join('.'), 'POST', now)).toMatchObject({ ok: false });
    }
    expect(new RelayVerifier(KEY, 'nb').check('v1.na', 'POST', now)).toMatchObject({ ok: false, reason: 'malformed relay header' });
  });
});

/** Two nodes' directory in one process: where each is, and what was looked up or found unreachable. */
class Directory implements SessionDirectory {
  readonly relayKey = KEY;
  readonly lookups: string[] = [];
  readonly unreachables: SessionRoute[] = [];

  constructor(
    readonly nodeId: string,
    private readonly routes: Map<string, string>,
  ) {}

  async locate(nodeId: string): Promise<SessionRoute | undefined> {
    this.lookups.push(nodeId);
    const url = this.routes.get(nodeId);
    return url === undefined ? undefined : { nodeId, url };
  }

  unreachable(route: SessionRoute): void {
    this.unreachables.push(route);
  }
}

const served: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of served.splice(0)) await s.close();
});

async function twoNodes(auth = false) {
  const routes = new Map<string, string>();
  const authOptions = auth
    ? {
        authenticator: staticTokens({ 'alice-token': { subject: 'alice', scopes: [] }, 'bob-token': { subject: 'bob', scopes: [] } }),
        authorizationServers: ['https://as.example.com'],
      }
    : {};
  const registry = new Registry();
  registry.registerTool({ name: 'echo', handler: (args) => String(args.text) });
  const a = new Directory('na', routes);
  const b = new Directory('nb', routes);
  const nodeA = await serve({ registry }, { sessionDirectory: a, relayConnectTimeoutMs: 500, ...authOptions });
  const nodeB = await serve({ registry }, { sessionDirectory: b, relayConnectTimeoutMs: 500, ...authOptions });
  served.push(nodeA, nodeB);
  routes.set('na', nodeA.base).set('nb', nodeB.base);
  return { a, b, nodeA, nodeB, routes };
}

function call(url: string, sessionId: string, headers: Record<string, string> = {}): Promise<Response> {
  return postJson(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }, { 'mcp-session-id': sessionId, ...headers });
}

async function initialize(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await postJson(url, initializeMessage(1), headers);
  expect(response.status).toBe(200);
  return response.headers.get('mcp-session-id')!;
}

describe('relaying between two handlers', () => {
  test('without a directory nothing changes: ids name no node, a relay header means nothing', async () => {
    const alone = await serve();
    served.push(alone);
    const sessionId = await initialize(alone.url, { 'x-rxmcp-relay': 'v1.na.0.x.y.z' });
    expect(sessionId).toMatch(/^mcp-/);
    expect((await call(alone.url, 'na.mcp-elsewhere', { 'x-rxmcp-relay': 'anything' })).status).toBe(404);
  });


  test('a session id names its node; the other node relays to it, once (a relayed request is never relayed again)', async () => {
    const { a, b, nodeA, nodeB } = await twoNodes();
    const sessionId = await initialize(nodeA.url);
    expect(sessionId).toMatch(/^na\.mcp-/);
    const relayed = await call(nodeB.url, sessionId);
    expect(relayed.status).toBe(200);
    expect(await relayed.json()).toMatchObject({ id: 2, result: { content: [{ text: 'hi' }] } });
    expect(b.lookups).toEqual(['na']);
    // A relayed request naming a session its receiver does not hold is a 404 there, whatever the id says.
    const looped = await call(nodeA.url, 'nb.mcp-elsewhere', { 'x-rxmcp-relay': signRelay(KEY, 'nb', 'na', 'POST', 'addr:x', Date.now()) });
    expect(looped.status).toBe(404);
    expect(a.lookups).toEqual([]);
  });

  test('an owner not found, or refusing the connection, is a 404 at once; the refusal is reported', async () => {
    const { b, nodeB, routes } = await twoNodes();
    expect((await call(nodeB.url, 'nz.mcp-gone')).status).toBe(404);
    // A port nobody listens on: bound, then closed.
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    routes.set('nd', `http://127.0.0.1:${port}`);
    const started = performance.now();
    expect((await call(nodeB.url, 'nd.mcp-dead')).status).toBe(404);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(b.unreachables).toEqual([{ nodeId: 'nd', url: `http://127.0.0.1:${port}` }]);
    // An id naming no node, and the node's own id for a session it does not hold: 404, nothing looked up.
    expect((await call(nodeB.url, 'mcp-plain')).status).toBe(404);
    expect((await call(nodeB.url, 'nb.mcp-unknown')).status).toBe(404);
    expect(b.lookups).toEqual(['nz', 'nd']);
  });

  test('the owner authenticates the relayed request itself: the session\'s principal passes, another is a 404', async () => {
    const { nodeA, nodeB } = await twoNodes(true);
    const alice = { authorization: 'Bearer alice-token' };
    const sessionId = await initialize(nodeA.url, alice);
    expect((await call(nodeB.url, sessionId, alice)).status).toBe(200);
    expect((await call(nodeB.url, sessionId, { authorization: 'Bearer bob-token' })).status).toBe(404);
    expect((await call(nodeB.url, sessionId)).status).toBe(401);
  });
});

describe('relaying from and to handlers in frameworks', () => {
  async function twoApps(mount: (server: McpServer, options: HttpHandlerOptions) => Promise<MountedApp>) {
    const routes = new Map<string, string>();
    const registry = new Registry();
    registry.registerTool({ name: 'echo', handler: (args) => String(args.text) });
    const apps: MountedApp[] = [];
    for (const nodeId of ['na', 'nb']) {
      const app = await mount(createServer({ registry }), { sessionDirectory: new Directory(nodeId, routes), requireAuthorization: false });
      served.push(app);
      routes.set(nodeId, app.base);
      apps.push(app);
    }
    return apps as [MountedApp, MountedApp];
  }

  test('fetch handlers: a POST relayed from one to the other answers on its SSE stream', async () => {
    const [a, b] = await twoApps((server, options) => mountFetch(server, options, 'hono-node-server'));
    const sessionId = await initialize(a.url);
    const response = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'via fetch' } } }),
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(response);
    expect((await reader.nextMessage()).message).toMatchObject({ id: 3, result: { content: [{ text: 'via fetch' }] } });
    expect(await reader.untilEnd()).toBe(true);
  });

  test('Express mounted at /mcp: streamable and legacy requests reach the same mount on the owner', async () => {
    const [a, b] = await twoApps((server, options) => mountExpress(server, options, '/mcp'));
    const sessionId = await initialize(a.url);
    expect(sessionId).toMatch(/^na\./);
    expect(await (await call(b.url, sessionId)).json()).toMatchObject({ id: 2, result: { content: [{ text: 'hi' }] } });
    // Legacy: the stream on A, its POSTs to B.
    const stream = new SseReader(await fetch(a.sseUrl!, { headers: { accept: 'text/event-stream' } }));
    const endpoint = await stream.next();
    expect(endpoint.data).toMatch(/^\/mcp\/messages\?sessionId=na\./);
    const posted = await postJson(`${b.base}${endpoint.data!}`, { jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(posted.status).toBe(202);
    expect((await stream.nextMessage()).message).toMatchObject({ id: 9, result: {} });
    await stream.cancel();
  });
});
