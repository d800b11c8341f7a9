/**
 * Contract gap: a request before `initialize` on a legacy-era connection.
 * MCP 2025-11-25 (lifecycle): initialization is the first interaction, and
 * the client SHOULD NOT send requests other than pings before the server
 * answered `initialize`. On a connection declared by the stdio, WebSocket or
 * legacy SSE transport, until `initialize` arrives: `ping` is answered, any
 * other request is -32600 "send initialize first" (with its id, the method
 * never runs), a notification is dropped. Direct callers, the in-memory
 * transport and Streamable HTTP (initialize mints its session) are unchanged.
 */
import { PassThrough } from 'node:stream';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import { Registry, type OutboundMessage, type TransportKind } from '../../lib/index.js';
import { serveHttp, serveStdio, serveWebSocket } from '../../transports/index.js';
import { makeServer, note, rpc, settle } from '../contract/helpers.js';
import { within } from './demo-process.js';
import { initializeRequest, ping, pong } from './hostile-json.js';
import { LegacySseClient, RawWebSocket } from './wire-clients.js';

const NOT_INITIALIZED = { code: -32600, message: 'Invalid Request: send initialize first (this connection is not initialized)' };
const refused = (id: unknown) => ({ jsonrpc: '2.0', id, error: NOT_INITIALIZED });

function countingServer() {
  const runs: string[] = [];
  const registry = new Registry().registerTool({ name: 'count', handler: () => { runs.push('count'); return 'counted'; } });
  return { server: makeServer({ registry }), runs };
}

function connected(transport: TransportKind) {
  const { server, runs } = countingServer();
  const inbound = new Subject<unknown>();
  const received: OutboundMessage[] = [];
  const subscription = server.connect(`c-${transport}`, inbound, { transport }).subscribe((m) => received.push(m));
  return { server, runs, received, send: (m: unknown) => inbound.next(m), close: () => subscription.unsubscribe() };
}

describe.each(['stdio', 'ws', 'sse'] as const)('a connection declared %s', (transport) => {
  test('before initialize: ping is answered, other requests are -32600 with their id and never run, notifications get nothing', () => {
    const c = connected(transport);
    c.send(rpc(1, 'tools/list'));
    c.send(rpc(2, 'tools/call', { name: 'count' }));
    c.send(rpc(3, 'ping'));
    c.send(rpc(4, 'resources/read', { uri: 'x://y' }));
    c.send(rpc(5, 'no/such/method'));
    c.send(note('notifications/initialized'));
    c.send(note('notifications/cancelled', { requestId: 2 }));
    expect(c.received).toStrictEqual([refused(1), refused(2), pong(3), refused(4), refused(5)]);
    expect(c.runs).toEqual([]);
    c.close();
  });

  test('the envelope check still comes first: a bad envelope is its own error', () => {
    const c = connected(transport);
    c.send({ jsonrpc: '1.0', id: 1, method: 'tools/list' });
    c.send({ jsonrpc: '2.0', id: [1], method: 'tools/list' });
    expect(c.received.map((m) => (m as any).error.message)).toEqual([
      'Invalid Request: jsonrpc must be "2.0"',
      'Invalid Request: id must be a string, a number or null',
    ]);
    c.close();
  });

  test('after initialize everything is served, and a second initialize is fine too', () => {
    const c = connected(transport);
    c.send(initializeRequest('init'));
    c.send(rpc(1, 'tools/call', { name: 'count' }));
    c.send(initializeRequest('again'));
    c.send(rpc(2, 'tools/list'));
    expect(c.received.map((m) => (m as any).id)).toEqual(['init', 1, 'again', 2]);
    expect(c.received.every((m) => 'result' in m)).toBe(true);
    expect(c.runs).toEqual(['count']);
    c.close();
  });

  test('each connection has its own phase: a new connection under the same id starts uninitialized', () => {
    const { server } = countingServer();
    const first = new Subject<unknown>();
    const seen: OutboundMessage[] = [];
    const one = server.connect('same', first, { transport }).subscribe((m) => seen.push(m));
    first.next(initializeRequest('i'));
    one.unsubscribe();
    const second = new Subject<unknown>();
    const two = server.connect('same', second, { transport }).subscribe((m) => seen.push(m));
    second.next(rpc(1, 'tools/list'));
    expect(seen.at(-1)).toStrictEqual(refused(1));
    two.unsubscribe();
  });
});

describe('not gated', () => {
  test.each(['memory', 'http', 'unknown'] as const)('a connection declared %s answers before initialize, as before', (transport) => {
    const c = connected(transport);
    c.send(rpc(1, 'tools/call', { name: 'count' }));
    expect(c.received).toHaveLength(1);
    expect((c.received[0] as any).result.content[0].text).toBe('counted');
    c.close();
  });

  test('direct callers (handleMessage, request), even on a connection id a stdio subscriber declared', async () => {
    const { server } = countingServer();
    const pushes = server.subscribe(() => {}, 'stdio-like', { transport: 'stdio' });
    expect(((await server.handleMessage(rpc(1, 'tools/list'), { connId: 'stdio-like' })) as any).result.tools).toHaveLength(1);
    expect(((await server.request(rpc(2, 'tools/list'), 'stdio-like').reply) as any).result.tools).toHaveLength(1);
    pushes.unsubscribe();
  });
});

describe('over the real transports', () => {
  const closers: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (closers.length > 0) await closers.pop()!();
  });

  test('stdio: refused before initialize, served after', async () => {
    const { server } = countingServer();
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l))));
    const handle = serveStdio(server, { input, output });
    for (const message of [rpc(1, 'tools/list'), ping(2), initializeRequest(3), rpc(4, 'tools/list')]) {
      input.write(`${JSON.stringify(message)}\n`);
    }
    input.end();
    await within(handle.closed, 5000, 'stdio close');
    await settle();
    expect(lines.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(lines[0]).toStrictEqual(refused(1));
    expect(lines[1]).toStrictEqual(pong(2));
    expect(lines[3]).toHaveProperty('result.tools');
  });

  test('WebSocket: refused before initialize, served after', async () => {
    const { server } = countingServer();
    const ws = await serveWebSocket(server, { port: 0, pingIntervalMs: null });
    closers.push(() => ws.close());
    const socket = await RawWebSocket.open(ws.url!);
    closers.push(() => socket.close());
    socket.send(rpc(1, 'tools/call', { name: 'count' }));
    expect(await socket.next()).toStrictEqual(refused(1));
    socket.send(initializeRequest(2));
    expect(await socket.next()).toHaveProperty('result.protocolVersion');
    socket.send(rpc(3, 'tools/call', { name: 'count' }));
    expect(await socket.next()).toHaveProperty('result.content.0.text', 'counted');
  });

  test('legacy SSE: refused before initialize, served after', async () => {
    const { server } = countingServer();
    const http = await serveHttp(server, { port: 0 });
    closers.push(() => http.close());
    const sse = await LegacySseClient.open(http.sseUrl!);
    closers.push(() => sse.close());
    expect(await sse.send(rpc(1, 'tools/list'))).toBe(202);
    expect(await sse.next()).toStrictEqual(refused(1));
    await sse.send(initializeRequest(2));
    expect(await sse.next()).toHaveProperty('result.protocolVersion');
    await sse.send(rpc(3, 'tools/list'));
    expect(await sse.next()).toHaveProperty('result.tools');
  });
});
