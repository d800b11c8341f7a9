/**
 * Fastify 5 with its own JSON parser active: the plugin registers only the
 * transport's routes (the app's stay the app's), uses the body Fastify
 * parsed, and answers what Fastify's parser refuses in the transport's
 * JSON-RPC shapes. The official client runs the whole scenario, at the
 * root and under a registration prefix.
 */
import { describe, expect, test } from 'vitest';
import { initializeMessage, postJson } from '../http/helpers.js';
import { bareServer, closedAfterEach, describeSdkScenarios, mountFastify } from './mounts.js';

describeSdkScenarios('official SDK client, Fastify plugin (Fastify parses the body) under { prefix: "/api" }', (server, options) =>
  mountFastify(server, options, '/api'),
);

describe('Fastify composition', () => {
  const keep = closedAfterEach<Awaited<ReturnType<typeof mountFastify>>>();

  test('the body Fastify parsed is the one answered; the app\'s own route still answers', async () => {
    const app = keep(await mountFastify(bareServer(), { requireAuthorization: false }));
    const response = await postJson(app.url, initializeMessage());
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25');
    expect(app.parsedBodies).toEqual(['object']);
    expect(await (await fetch(`${app.base}/hello`)).text()).toBe('hello');
    expect((await fetch(`${app.base}/elsewhere`)).status).toBe(404);
  });

  test('under a prefix the endpoint is prefix + endpoint', async () => {
    const app = keep(await mountFastify(bareServer(), { requireAuthorization: false }, '/api'));
    expect((await postJson(`${app.base}/api/mcp`, initializeMessage())).status).toBe(200);
    expect((await postJson(`${app.base}/mcp`, initializeMessage())).status).toBe(404);
  });

  test('what Fastify\'s parser refuses is answered in JSON-RPC shapes: 413 over maxBodyBytes, -32700 for bad JSON, 415', async () => {
    const app = keep(await mountFastify(bareServer(), { requireAuthorization: false, maxBodyBytes: 1024 }));
    const large = await postJson(app.url, { ...initializeMessage(), padding: 'x'.repeat(2048) });
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining('1024 bytes') } });
    const bad = await postJson(app.url, '{"jsonrpc": "2.0",');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const xml = await fetch(app.url, { method: 'POST', headers: { 'content-type': 'application/xml', accept: 'application/json' }, body: '<x/>' });
    expect(xml.status).toBe(415);
    expect(await xml.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: expect.stringContaining('Unsupported Media Type') } });
  });

  test('closing the app ends the sessions', async () => {
    const app = await mountFastify(bareServer(), { requireAuthorization: false });
    expect((await postJson(app.url, initializeMessage())).status).toBe(200);
    expect(app.stats().sessions).toBe(1);
    await app.close();
    expect(app.stats().sessions).toBe(0);
  });
});
