/**
 * Hono 4 on @hono/node-server, with a middleware that reads every POST body
 * (`c.req.json()`) before the handler: the body is taken from Hono's cache
 * (it used to be gone), requests for other paths go on to the app's routes
 * with `next()`. The official client runs the whole scenario, over
 * Streamable HTTP and the legacy SSE transport.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Hono } from 'hono';
import { afterEach, describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { createHonoHandler } from '../../transports/frameworks/hono.js';
import { initializeMessage, postJson } from '../http/helpers.js';
import { describeSdkScenario } from '../http/sdk-scenario.js';
import { mountHono } from './mounts.js';

describeSdkScenario(
  'official SDK client, Hono: a body-reading middleware first',
  'http',
  ({ http }) => new StreamableHTTPClientTransport(new URL(http.url)),
  (server, options) => mountHono(server, options),
);

describeSdkScenario(
  'official SDK client, Hono: legacy SSE',
  'sse',
  ({ http }) => new SSEClientTransport(new URL(http.sseUrl!)),
  (server, options) => mountHono(server, options),
);

describe('Hono composition', () => {
  let app: Awaited<ReturnType<typeof mountHono>> | undefined;
  const server = () => createServer({ registry: new Registry() });

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  test('a body a middleware read is answered; the app\'s own routes still answer', async () => {
    app = await mountHono(server(), { requireAuthorization: false });
    const response = await postJson(app.url, initializeMessage());
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/./);
    expect(app.bodiesReadBefore()).toBe(1);
    expect(await (await fetch(`${app.base}/hello`)).text()).toBe('hello');
    expect((await fetch(`${app.base}/elsewhere`)).status).toBe(404);
  });

  // In process: Hono's app.fetch called with Requests, no server.
  describe('bodies read before the handler, in process', () => {
    const post = (body: string) =>
      new Request('http://127.0.0.1/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });

    test('read as text: checked against maxBodyBytes and parsed like any body', async () => {
      const handler = createHonoHandler(server(), { requireAuthorization: false, maxBodyBytes: 512 });
      const hono = new Hono().use(async (c, next) => {
        await c.req.text();
        await next();
      });
      hono.use(handler);
      const ok = await hono.fetch(post(JSON.stringify(initializeMessage())));
      expect(ok.status).toBe(200);
      const large = await hono.fetch(post(JSON.stringify({ ...initializeMessage(), padding: 'x'.repeat(1024) })));
      expect(large.status).toBe(413);
      const bad = await hono.fetch(post('{"jsonrpc":'));
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
      handler.close();
    });

    test('drained from the raw Request with nothing cached: a clear 500, not a hang', async () => {
      const handler = createHonoHandler(server(), { requireAuthorization: false });
      const hono = new Hono().use(async (c, next) => {
        await c.req.raw.text();
        await next();
      });
      hono.use(handler);
      const response = await hono.fetch(post(JSON.stringify(initializeMessage())));
      expect(response.status).toBe(500);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain('read before the MCP handler');
      handler.close();
    });
  });
});
