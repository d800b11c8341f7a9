/**
 * createFetchHandler: the transport as `(Request) => Promise<Response>`.
 * The official client runs the whole scenario against it served on
 * node:http through a tiny Request/Response bridge and on
 * @hono/node-server; progress notifications arrive on a POST's SSE answer.
 * In process (the handler called with Requests, no server): the same
 * answers, guards, limits and session ends as the node handler, a stream
 * whose reader goes away is released, and one whose reader stops reading is
 * cut off at maxStreamBufferBytes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, createServer, Registry, type McpServer } from '../../lib/index.js';
import { createFetchHandler, type FetchHandler } from '../../transports/index.js';
import type { SchedulerLike } from 'rxjs';
import { eventually, initializeMessage, PROTOCOL, SseReader, virtualClock } from '../http/helpers.js';
import { closedAfterEach, describeSdkScenarios, mountFetch, type MountedApp } from './mounts.js';

describeSdkScenarios('official SDK client, fetch handler on the node:http bridge', (server, options) => mountFetch(server, options, 'bridge'));
describeSdkScenarios('official SDK client, fetch handler on @hono/node-server', (server, options) => mountFetch(server, options, 'hono-node-server'), ['http']);

function progressServer(scheduler?: SchedulerLike): McpServer {
  const registry = new Registry().registerTool({
    name: 'steps',
    handler: async (_args, ctx) => {
      ctx.progress(1, 2, 'half');
      ctx.progress(2, 2, 'all');
      return 'stepped';
    },
  });
  return createServer({ registry, ...(scheduler === undefined ? {} : { scheduler }) });
}

describe.each(['bridge', 'hono-node-server'] as const)('official SDK client, fetch handler on %s: notifications on the SSE answer', (via) => {
  const keep = closedAfterEach<MountedApp>();

  test('progress notifications arrive before the reply', async () => {
    const app = keep(await mountFetch(progressServer(), { requireAuthorization: false }, via));
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(app.url)));
    const seen: string[] = [];
    const result = await client.callTool({ name: 'steps' }, undefined, {
      onprogress: (p) => seen.push(`${p.progress}/${p.total} ${p.message}`),
    });
    expect(seen).toEqual(['1/2 half', '2/2 all']);
    expect(result).toEqual({ content: [{ type: 'text', text: 'stepped' }] });
    await client.close();
  });
});

describe('the fetch handler in process', () => {
  const origin = 'http://127.0.0.1:8080';
  let handler: FetchHandler | undefined;
  let server: McpServer;
  afterEach(() => handler?.close());

  function make(options: Parameters<typeof createFetchHandler>[1] = {}, scheduler?: SchedulerLike): FetchHandler {
    server = progressServer(scheduler);
    handler = createFetchHandler(server, { requireAuthorization: false, ...options });
    return handler;
  }

  function post(body: unknown, headers: Record<string, string> = {}, path = '/mcp'): Request {
    return new Request(`${origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  }

  async function session(h: FetchHandler): Promise<string> {
    const response = await h(post(initializeMessage()));
    expect(response.status).toBe(200);
    const id = response.headers.get('mcp-session-id')!;
    await response.json();
    const initialized = await h(post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id }));
    expect(initialized.status).toBe(202);
    return id;
  }

  test('a JSON answer, then an SSE answer carrying the notifications before the reply', async () => {
    const h = make();
    const id = await session(h);
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 'p' } } };
    const response = await h(post(call, { 'mcp-session-id': id, accept: 'application/json, text/event-stream', 'mcp-protocol-version': PROTOCOL }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe(id);
    expect(response.headers.has('connection')).toBe(false);
    const reader = new SseReader(response);
    const methods: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      const { message } = await reader.nextMessage();
      methods.push(message.method ?? message.result);
    }
    expect(methods).toEqual(['notifications/progress', 'notifications/progress', { content: [{ type: 'text', text: 'stepped' }] }]);
    expect(await reader.untilEnd()).toBe(true);
  });

  test('GET opens the standalone stream: a broadcast arrives; the reader going away releases it', async () => {
    const h = make();
    const id = await session(h);
    const response = await h(new Request(`${origin}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } }));
    expect(response.status).toBe(200);
    const reader = new SseReader(response);
    expect(h.stats().openStreams).toBe(1);
    server.notify('notifications/tools/list_changed');
    expect((await reader.nextMessage()).message.method).toBe('notifications/tools/list_changed');
    await reader.cancel();
    await eventually(() => h.stats().openStreams === 0);
  });

  test('a reader that stops reading is cut off once over maxStreamBufferBytes for streamStallTimeoutMs', async () => {
    const clock = virtualClock();
    const h = make({ maxStreamBufferBytes: 4096, streamStallTimeoutMs: 1000 }, clock.scheduler);
    const id = await session(h);
    const response = await h(new Request(`${origin}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } }));
    expect(h.stats().openStreams).toBe(1);
    for (let i = 0; i < 20; i += 1) server.notify('notifications/message', { level: 'info', data: 'x'.repeat(512) });
    clock.advance(999);
    expect(h.stats().openStreams).toBe(1);
    clock.advance(2);
    clock.advance(1000);
    await eventually(() => h.stats().openStreams === 0);
    await expect(response.text()).rejects.toThrow();
  });

  test('DELETE ends the session; the guards and limits answer as on node', async () => {
    const h = make({ maxBodyBytes: 256 });
    const id = await session(h);
    expect((await h(new Request(`${origin}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': id } }))).status).toBe(204);
    expect((await h(post({ jsonrpc: '2.0', id: 3, method: 'ping' }, { 'mcp-session-id': id }))).status).toBe(404);
    expect((await h(post(initializeMessage(), { origin: 'https://evil.example' }))).status).toBe(403);
    expect((await h(new Request('http://evil.example/mcp', { method: 'POST', body: '{}' }))).status).toBe(403);
    expect((await h(post(initializeMessage(), { 'mcp-protocol-version': '1999-01-01' }))).status).toBe(400);
    expect((await h(post(initializeMessage(), { 'content-type': 'text/plain' }))).status).toBe(415);
    const bad = await h(post('{"jsonrpc":'));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const large = await h(post({ ...initializeMessage(), padding: 'x'.repeat(512) }));
    expect(large.status).toBe(413);
    // Streamed without a Content-Length: counted as it comes, the rest not read.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(64)));
        controller.close();
      },
    });
    const streamed = await h(new Request(`${origin}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunks, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
  });

  test('paths: serves() names its own; another is a 404 from the handler itself; the health check answers', async () => {
    const h = make();
    expect(h.serves(new Request(`${origin}/mcp`))).toBe(true);
    expect(h.serves(new Request(`${origin}/sse`))).toBe(true);
    expect(h.serves(new Request(`${origin}/app/route`))).toBe(false);
    const missing = await h(new Request(`${origin}/app/route`));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { message: 'Not Found: /app/route' } });
    expect(await (await h(new Request(`${origin}/health`))).json()).toEqual({ status: 'ok', sessions: 0 });
  });

  test('close() ends the sessions; a request after it is a 503', async () => {
    const h = make();
    await session(h);
    expect(h.stats().sessions).toBe(1);
    h.close();
    expect(h.stats().sessions).toBe(0);
    expect((await h(post(initializeMessage()))).status).toBe(503);
  });

  test('the network boot guard holds: no authorization outside development or test is a ConfigError', () => {
    expect(() => createFetchHandler(createServer(), { env: { NODE_ENV: 'production' } })).toThrow(ConfigError);
  });
});
