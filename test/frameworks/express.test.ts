/**
 * Express 5: the handler composes as middleware. With `express.json()`
 * before it, a body already parsed is used (it used to wait for a body
 * that had been read: a hang); under `app.use('/mcp', ...)` the mount path
 * is the endpoint (it used to answer `Not Found: /`); at the root the app's
 * own routes still answer (they used to get a JSON-RPC 404). The official
 * client runs the whole scenario in both shapes, and over the legacy SSE
 * transport below the mount.
 */
import { describe, expect, test } from 'vitest';
import { initializeMessage, postJson } from '../http/helpers.js';
import { bareServer, closedAfterEach, describeSdkScenarios, mountExpress, type MountedApp } from './mounts.js';

// Under the mount the legacy transport is below it too (/mcp/sse, /mcp/messages).
describeSdkScenarios('official SDK client, Express: express.json() first, app.use("/mcp", handler)', (server, options) =>
  mountExpress(server, options, '/mcp'),
);
describeSdkScenarios('official SDK client, Express: app.use(handler) at the root', (server, options) => mountExpress(server, options, '/'), ['http']);

describe('Express composition', () => {
  const keep = closedAfterEach<MountedApp>();

  test('under app.use("/mcp", ...): the mount path is the endpoint; a parsed body is answered, not waited for', async () => {
    const app = keep(await mountExpress(bareServer(), { requireAuthorization: false }, '/mcp'));
    const response = await postJson(`${app.base}/mcp`, initializeMessage());
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/./);
    expect(((await response.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('rxmcp');
  });

  test('under app.use("/mcp", ...): a path below the mount it does not serve goes on to the app (its 404, not ours)', async () => {
    const app = keep(await mountExpress(bareServer(), { requireAuthorization: false }, '/mcp'));
    const response = await fetch(`${app.base}/mcp/nothing-here`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('Cannot GET /mcp/nothing-here');
  });

  test('at the root: the app\'s own routes still answer, before and after the handler', async () => {
    const app = keep(await mountExpress(bareServer(), { requireAuthorization: false }, '/'));
    const hello = await fetch(`${app.base}/hello`);
    expect(await hello.text()).toBe('hello');
    const echo = await postJson(`${app.base}/api/echo`, { a: 1 });
    expect(echo.status).toBe(200);
    expect(await echo.json()).toEqual({ echoed: { a: 1 } });
    const missing = await fetch(`${app.base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('Cannot GET /nowhere');
    const health = await fetch(`${app.base}/health`);
    expect(await health.json()).toEqual({ status: 'ok', sessions: 0 });
  });

  test('the guards still hold behind express.json(): a foreign Origin is 403, an unknown protocol version 400', async () => {
    const app = keep(await mountExpress(bareServer(), { requireAuthorization: false }, '/mcp'));
    const foreign = await postJson(`${app.base}/mcp`, initializeMessage(), { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    const version = await postJson(`${app.base}/mcp`, initializeMessage(), { 'mcp-protocol-version': '1999-01-01' });
    expect(version.status).toBe(400);
  });
});
