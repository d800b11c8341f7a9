/**
 * The framework adapters protect the same way, through the shared router:
 * Express (at the root), Fastify and Hono publish the Protected Resource
 * Metadata, challenge a request without a token, and serve one with a token;
 * a principal naming another's session gets 404.
 */
import { describe, expect, test } from 'vitest';
import { createServer, staticTokens } from '../../lib/index.js';
import { initializeMessage, postJson } from '../http/helpers.js';
import { closedAfterEach, mountExpress, mountFastify, mountHono } from '../frameworks/mounts.js';
import { challengeParams, protectedRegistry } from './protected-http.js';

const RESOURCE = 'http://127.0.0.1/mcp';
const options = () => ({
  requireAuthorization: false,
  authenticator: staticTokens({ 'alice-token': { subject: 'alice', scopes: ['mcp:use'] }, 'bob-token': { subject: 'bob', scopes: ['mcp:use'] } }),
  resource: RESOURCE,
  authorizationServers: ['https://as.example.com'],
  requiredScopes: ['mcp:use'],
});

describe.each([
  ['Express', (server: ReturnType<typeof createServer>) => mountExpress(server, options(), '/')],
  ['Fastify', (server: ReturnType<typeof createServer>) => mountFastify(server, options())],
  ['Hono', (server: ReturnType<typeof createServer>) => mountHono(server, options())],
])('%s', (_name, mount) => {
  const keep = closedAfterEach<Awaited<ReturnType<typeof mountExpress>>>();

  test('metadata, challenge, the owner served, another principal 404', async () => {
    const app = keep(await mount(createServer({ registry: protectedRegistry() })));
    const metadata = await fetch(`${app.base}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ resource: RESOURCE, authorization_servers: ['https://as.example.com'] });
    const challenged = await postJson(app.url, initializeMessage());
    expect(challenged.status).toBe(401);
    expect(challengeParams(challenged.headers.get('www-authenticate'))).toEqual({
      resource_metadata: 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp',
      scope: 'mcp:use',
    });
    const opened = await postJson(app.url, initializeMessage(), { authorization: 'Bearer alice-token' });
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id')!;
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami' } };
    expect((await postJson(app.url, call, { authorization: 'Bearer bob-token', 'mcp-session-id': session })).status).toBe(404);
    const mine = await postJson(app.url, call, { authorization: 'Bearer alice-token', 'mcp-session-id': session });
    expect(((await mine.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toBe('alice [mcp:use]');
  });
});
