/**
 * The WebSocket transport authenticates the upgrade, before the 101, with
 * the HTTP transport's challenges (401 naming resource_metadata and scope,
 * 403 for a missing endpoint scope); the principal is fixed for the socket
 * and reaches the handlers; declared scopes are enforced in the core (no
 * HTTP status on a socket: the call is denied and the tool not listed); and
 * when the token expires on the server's virtual clock, the socket is
 * closed 4401 "token expired". A listener of its own publishes the
 * Protected Resource Metadata when given the authorization servers.
 */
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import type { WebSocket } from 'ws';
import { createServer, jwtBearer } from '../../lib/index.js';
import type { ServeWebSocketOptions } from '../../transports/index.js';
import { closeAll, closeEvent, inbox, listen, openClient, rawClient } from '../ws/helpers.js';
import { epochClock, seconds, startFakeAs, T0, type FakeAs } from './fake-as.js';
import { challengeParams, ENDPOINT_SCOPE, METADATA_URL, protectedRegistry, RESOURCE } from './protected-http.js';

let as: FakeAs | undefined;
afterEach(async () => {
  await closeAll();
  await as?.close();
  as = undefined;
});

async function protectedWs(options: Partial<ServeWebSocketOptions> = {}) {
  as = await startFakeAs();
  const clock = epochClock();
  const server = createServer({ registry: protectedRegistry(), scheduler: clock.scheduler });
  const authenticator = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], jwksUri: as.jwksUri, scheduler: clock.scheduler });
  const { url } = await listen(server, { authenticator, resource: RESOURCE, requiredScopes: [ENDPOINT_SCOPE], ...options });
  const fake = as;
  const token = (claims: { sub?: string; scope?: string; expiresIn?: number } = {}) =>
    fake.sign({ iss: fake.issuer, sub: claims.sub ?? 'alice', client_id: 'app', aud: RESOURCE, scope: claims.scope ?? ENDPOINT_SCOPE, exp: seconds(T0) + (claims.expiresIn ?? 3600) });
  return { server, clock, url, token };
}

async function refusal(socket: WebSocket): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  const [, response] = (await once(socket, 'unexpected-response', { signal: AbortSignal.timeout(3000) })) as [unknown, IncomingMessage];
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return { status: response.statusCode ?? 0, headers: response.headers, body };
}

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws', version: '1' } } };

async function initialized(socket: WebSocket) {
  const messages = inbox(socket);
  socket.send(JSON.stringify(initialize));
  expect(await messages.next()).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
  socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return messages;
}

describe('WebSocket authentication', () => {
  test('an upgrade without a token is 401 with the challenge, before any socket exists', async () => {
    const { server, url } = await protectedWs();
    const refused = await refusal(rawClient(url));
    expect(refused.status).toBe(401);
    expect(challengeParams(refused.headers['www-authenticate'] as string)).toEqual({ resource_metadata: METADATA_URL, scope: ENDPOINT_SCOPE });
    expect(JSON.parse(refused.body)).toEqual({ error_description: 'authentication required' });
    expect(server.stats().connections).toBe(0);
  });

  test('a bad token is 401 invalid_token; a token without the endpoint scope is 403 insufficient_scope', async () => {
    const { url, token } = await protectedWs();
    const bad = await refusal(rawClient(url, 'mcp', auth(`${await token()}x`)));
    expect(bad.status).toBe(401);
    expect(challengeParams(bad.headers['www-authenticate'] as string).error).toBe('invalid_token');
    const narrow = await refusal(rawClient(url, 'mcp', auth(await token({ scope: 'notes:read' }))));
    expect(narrow.status).toBe(403);
    expect(challengeParams(narrow.headers['www-authenticate'] as string)).toMatchObject({ error: 'insufficient_scope', scope: ENDPOINT_SCOPE });
  });

  test('the principal is fixed for the socket; declared scopes are enforced in the core', async () => {
    const { url, token } = await protectedWs();
    const socket = await openClient(url, 'mcp', auth(await token()));
    const messages = await initialized(socket);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', _meta: { principal: { subject: 'root' } } } }));
    expect(await messages.next()).toMatchObject({ id: 1, result: { content: [{ text: `alice [${ENDPOINT_SCOPE}]` }] } });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'delete_note' } }));
    const denied = (await messages.next()) as { id: number; result: { isError: boolean; content: { text: string }[] } };
    expect(denied.result.isError).toBe(true);
    expect(JSON.parse(denied.result.content[0]!.text)).toMatchObject({ error: 'authorization_required', tool: 'delete_note', detail: 'insufficient_scope:notes:write' });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    expect(((await messages.next()) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual(['whoami']);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'notes://secret' } }));
    expect(await messages.next()).toMatchObject({ id: 4, error: { code: -32090, data: { detail: 'insufficient_scope:notes:read' } } });
  });

  test('at token expiry on the virtual clock the socket is closed 4401 "token expired"', async () => {
    const { server, clock, url, token } = await protectedWs();
    const socket = await openClient(url, 'mcp', auth(await token({ expiresIn: 30 })));
    const messages = await initialized(socket);
    clock.advance(29_999);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    const closed = closeEvent(socket);
    clock.advance(1);
    expect(await closed).toEqual({ code: 4401, reason: 'token expired' });
    expect(server.stats().connections).toBe(0);
  });

  test('a listener of its own publishes the Protected Resource Metadata when given the authorization servers', async () => {
    const { url } = await protectedWs({ authorizationServers: ['https://as.example.com'] });
    const base = url.replace(/^ws/, 'http').replace(/\/$/, '');
    const response = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ resource: RESOURCE, authorization_servers: ['https://as.example.com'], scopes_supported: [ENDPOINT_SCOPE, 'notes:read', 'notes:write'] });
    expect((await fetch(`${base}/elsewhere`)).status).toBe(426);
  });
});
