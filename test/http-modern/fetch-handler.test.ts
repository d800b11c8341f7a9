/**
 * The modern era through createFetchHandler (the same router as the node
 * handler): served statelessly, refused by the same ladder, GET/DELETE 405,
 * and cancelled when the Request's signal aborts.
 */
import { afterEach, expect, test } from 'vitest';
import { allowlist } from '../../lib/index.js';
import { createFetchHandler, type FetchHandler } from '../../transports/index.js';
import { eraServer, MODERN, modernRpc } from '../era/modern-helpers.js';
import { standardHeaders } from './helpers.js';

const URL_ = 'http://localhost/mcp';
const made: Array<{ handler: FetchHandler; close(): void }> = [];
afterEach(() => {
  for (const m of made.splice(0)) {
    m.handler.close();
    m.close();
  }
});

function make() {
  const { server, runs } = eraServer({ authorizer: allowlist(['echo', 'hang']) });
  const handler = createFetchHandler(server, { requireAuthorization: false });
  made.push({ handler, close: () => server.close() });
  return { handler, runs };
}

function modernRequest(id: unknown, method: string, params: Record<string, unknown> = {}, init: RequestInit = {}) {
  return new Request(URL_, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...standardHeaders(method, params) },
    body: JSON.stringify(modernRpc(id, method, params)),
    ...init,
  });
}

test('a modern tools/call: 200 JSON, no session', async () => {
  const { handler } = make();
  const response = await handler(modernRequest(1, 'tools/call', { name: 'echo', arguments: { text: 'fetch' } }));
  expect(response.status).toBe(200);
  expect(response.headers.get('mcp-session-id')).toBeNull();
  expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ text: 'fetch' }] } });
  expect(handler.stats().sessions).toBe(0);
});

test('the ladder: 404 for a removed method, 400 -32020 for a header mismatch; GET and DELETE 405', async () => {
  const { handler } = make();
  const ping = await handler(modernRequest('p', 'ping'));
  expect(ping.status).toBe(404);
  expect(await ping.json()).toMatchObject({ id: 'p', error: { code: -32601 } });
  const mismatch = await handler(new Request(URL_, { method: 'POST', headers: { 'content-type': 'application/json', ...standardHeaders('tools/list'), 'mcp-method': 'tools/call' }, body: JSON.stringify(modernRpc(2, 'tools/list')) }));
  expect(mismatch.status).toBe(400);
  expect(await mismatch.json()).toMatchObject({ id: 2, error: { code: -32020 } });
  for (const method of ['GET', 'DELETE']) {
    const response = await handler(new Request(URL_, { method, headers: { 'mcp-protocol-version': MODERN } }));
    expect(response.status).toBe(405);
  }
});

test('aborting the Request cancels the call (the handler signal fires)', async () => {
  const { handler, runs } = make();
  const controller = new AbortController();
  const pending = handler(modernRequest(3, 'tools/call', { name: 'hang' }, { signal: controller.signal }));
  await new Promise((resolve) => setImmediate(resolve));
  expect(runs).toEqual([]);
  controller.abort();
  await pending.catch(() => undefined);
  for (let i = 0; i < 5 && runs.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(runs).toEqual(['hang aborted']);
});
