import { afterEach, describe, expect, test } from 'vitest';
import { request as httpRequest } from 'node:http';
import { Registry } from '../../lib/index.js';
import { initializeMessage, openSession, postJson, serve, SseReader, type Served } from './helpers.js';

let served: Served | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

function rawRequest(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string | number>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

describe('streamable HTTP status codes', () => {
  test('initialize is 200 JSON with an Mcp-Session-Id; the health check is 200 JSON', async () => {
    served = await serve();
    const response = await postJson(served.url, initializeMessage(7));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const sessionId = response.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^mcp-[A-Za-z0-9_-]{24}$/);
    const body = (await response.json()) as { id: unknown; result: { protocolVersion: string } };
    expect(body.id).toBe(7);
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(served.server.stats().connections).toBe(1);

    const health = await fetch(`${served.base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', sessions: 1 });
  });

  test('a notification is 202 with no body; a request on the session is 200 with its reply', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    const note = await postJson(served.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': sessionId });
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    const ping = await postJson(served.url, { jsonrpc: '2.0', id: 'p', method: 'ping' }, { 'mcp-session-id': sessionId });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  test('400 for a request without a session id, 404 for an unknown one', async () => {
    served = await serve();
    const missing = await postJson(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Mcp-Session-Id/);
    const unknown = await postJson(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'mcp-nope' });
    expect(unknown.status).toBe(404);
    const body = (await unknown.json()) as { jsonrpc: string; id: unknown; error: { code: number } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  test('an unsupported MCP-Protocol-Version is 400; a supported or absent one passes', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    const bad = await postJson(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '1999-01-01',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/1999-01-01/);
    for (const version of ['2025-06-18', '2024-11-05']) {
      const good = await postJson(served.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, {
        'mcp-session-id': sessionId,
        'mcp-protocol-version': version,
      });
      expect(good.status).toBe(200);
      await good.json();
    }
  });

  test('405 for other methods, with Allow; 406 for a GET that does not accept SSE; 404 for other paths', async () => {
    served = await serve();
    const put = await fetch(served.url, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE');
    await put.body?.cancel();
    const healthPost = await fetch(`${served.base}/health`, { method: 'POST' });
    expect(healthPost.status).toBe(405);
    await healthPost.body?.cancel();
    const sessionId = await openSession(served.url);
    const get = await fetch(served.url, { headers: { accept: 'application/json', 'mcp-session-id': sessionId } });
    expect(get.status).toBe(406);
    await get.body?.cancel();
    const other = await fetch(`${served.base}/elsewhere`);
    expect(other.status).toBe(404);
    await other.body?.cancel();
  });

  test('bad JSON is 400 with -32700; an envelope the contract refuses is 400 with its error; non-JSON is 415', async () => {
    served = await serve();
    const parse = await postJson(served.url, '{"jsonrpc":');
    expect(parse.status).toBe(400);
    expect(await parse.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const batch = await postJson(served.url, [initializeMessage(1)]);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ id: null, error: { code: -32600 } });
    const text = await fetch(served.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(text.status).toBe(415);
    await text.body?.cancel();
    expect(served.server.stats().connections).toBe(0);
  });

  test('a body over the limit is 413, declared or streamed, and reaches no session', async () => {
    served = await serve({}, { maxBodyBytes: 1024 });
    const big = JSON.stringify({ ...initializeMessage(1), pad: 'x'.repeat(2000) });
    const declared = await rawRequest(served.http.port, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(big) },
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ id: null, error: { code: -32000 } });
    const chunked = await rawRequest(served.http.port, {
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
    const small = await postJson(served.url, initializeMessage(1));
    expect(small.status).toBe(200);
    await small.json();
    expect(served.http.handler.stats().sessions).toBe(1);
  });

  test('403 for a Host or an Origin outside the allow-list; loopback names with any port pass', async () => {
    served = await serve();
    const port = served.http.port;
    const body = JSON.stringify(initializeMessage(1));
    const json = { 'content-type': 'application/json' };
    const evilHost = await rawRequest(port, { method: 'POST', path: '/mcp', headers: { ...json, host: `evil.example:${port}` }, body });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body).error.message).toMatch(/Host/);
    const evilOrigin = await rawRequest(port, {
      method: 'POST',
      path: '/mcp',
      headers: { ...json, origin: 'https://evil.example' },
      body,
    });
    expect(evilOrigin.status).toBe(403);
    expect(JSON.parse(evilOrigin.body).error.message).toMatch(/Origin/);
    const nullOrigin = await rawRequest(port, { method: 'GET', path: '/health', headers: { origin: 'null' } });
    expect(nullOrigin.status).toBe(403);
    for (const host of [`localhost:${port}`, `[::1]:${port}`, '127.0.0.1:1']) {
      const ok = await rawRequest(port, { method: 'GET', path: '/health', headers: { host, origin: `http://${host}` } });
      expect(ok.status).toBe(200);
    }
    expect(served.server.stats().connections).toBe(0);
  });

  test('a configured allow-list replaces the loopback default', async () => {
    served = await serve({}, { allowedHosts: ['mcp.example:8443'], allowedOrigins: ['https://app.example'] });
    const port = served.http.port;
    const loopback = await rawRequest(port, { method: 'GET', path: '/health' });
    expect(loopback.status).toBe(403);
    const wrongPort = await rawRequest(port, { method: 'GET', path: '/health', headers: { host: 'mcp.example:80' } });
    expect(wrongPort.status).toBe(403);
    const ok = await rawRequest(port, { method: 'GET', path: '/health', headers: { host: 'mcp.example:8443', origin: 'https://app.example' } });
    expect(ok.status).toBe(200);
    const otherOrigin = await rawRequest(port, { method: 'GET', path: '/health', headers: { host: 'mcp.example:8443', origin: 'https://mcp.example:8443' } });
    expect(otherOrigin.status).toBe(403);
  });

  test('DELETE ends the session: 204, then 404; its running worker is aborted and its connection gone', async () => {
    const registry = new Registry();
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.registerTool({
      name: 'slow',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('never seen');
          });
        }),
    });
    served = await serve({ registry });
    const sessionId = await openSession(served.url);
    const call = postJson(served.url, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow' } }, { 'mcp-session-id': sessionId });
    await running;
    expect(served.server.stats().inFlight).toBe(1);
    const missing = await fetch(served.url, { method: 'DELETE' });
    expect(missing.status).toBe(400);
    await missing.body?.cancel();
    const del = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(del.status).toBe(204);
    expect(aborted).toBe(true);
    expect(served.server.stats()).toMatchObject({ connections: 0, inFlight: 0 });
    const pending = await call;
    expect(pending.status).toBe(404);
    await pending.body?.cancel();
    const after = await postJson(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId });
    expect(after.status).toBe(404);
    await after.body?.cancel();
    const again = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(again.status).toBe(404);
    await again.body?.cancel();
  });

  test('DELETE drops a parked call: no answer, nothing left parked', async () => {
    const registry = new Registry();
    registry.registerTool({ name: 'guarded', handler: () => 'ran' });
    served = await serve({ registry, authorizer: () => ({ ask: 'Run it?' }), authorizerSource: 'configured' });
    const sessionId = await openSession(served.url, { elicitation: {} });
    const listen = await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    const call = postJson(served.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'guarded' } }, { 'mcp-session-id': sessionId });
    const reader = new SseReader(listen);
    const { message } = await reader.nextMessage();
    expect(message.method).toBe('elicitation/create');
    expect(served.server.stats().parked).toBe(1);
    const del = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
    expect(del.status).toBe(204);
    expect(served.server.stats()).toMatchObject({ parked: 0, connections: 0 });
    expect(await reader.untilEnd()).toBe(true);
    expect((await call).status).toBe(404);
  });
});
