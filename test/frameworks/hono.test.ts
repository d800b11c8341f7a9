/**
 * Hono 4 on @hono/node-server, with a middleware that reads every POST body
 * (`c.req.json()`) before the handler: the body is taken from Hono's cache
 * (it used to be gone), requests for other paths go on to the app's routes
 * with `next()`. The official client runs the whole scenario, over
 * Streamable HTTP and the legacy SSE transport.
 */
import { Hono } from 'hono';
import { describe, expect, test } from 'vitest';
import { createHonoHandler } from '../../transports/frameworks/hono.js';
import { initializeMessage, postJson } from '../http/helpers.js';
import { bareServer, closedAfterEach, describeSdkScenarios, mountHono } from './mounts.js';

describeSdkScenarios('official SDK client, Hono: a body-reading middleware first', mountHono);

describe('Hono composition', () => {
  const keep = closedAfterEach<Awaited<ReturnType<typeof mountHono>>>();

  test('a body a middleware read is answered; the app\'s own routes still answer', async () => {
    const app = keep(await mountHono(bareServer(), { requireAuthorization: false }));
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
      const handler = createHonoHandler(bareServer(), { requireAuthorization: false, maxBodyBytes: 512 });
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
      const handler = createHonoHandler(bareServer(), { requireAuthorization: false });
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
