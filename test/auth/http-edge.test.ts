/**
 * The protected Streamable HTTP edge over real HTTP on 127.0.0.1, against a
 * loopback authorization server made in the test, on the server's virtual
 * clock: Protected Resource Metadata (path-aware and root, CORS), the
 * challenges (no token 401 naming resource_metadata and scope; malformed
 * header 400; bad tokens 401 invalid_token: expired on the virtual clock,
 * wrong audience, wrong issuer, wrong algorithm, a storm of unknown kids
 * costing one JWKS refetch), the endpoint's scope (403) and a tool's
 * declared scope (403 step-up before the response starts, then the same
 * session with a stepped-up token), list filtering by declared scopes, and
 * a forged identity in clientInfo, arguments or headers having no effect.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { SseReader } from '../http/helpers.js';
import { bearer, challengeParams, ENDPOINT_SCOPE, METADATA_URL, protectedHttp, RESOURCE, type ProtectedHttp } from './protected-http.js';

const PROTOCOL = '2025-11-25';
const init = (clientInfo: Record<string, unknown> = { name: 'raw', version: '1' }) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo },
});
const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

let served: ProtectedHttp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function openSession(p: ProtectedHttp, token: string, clientInfo?: Record<string, unknown>): Promise<string> {
  const response = await post(p.url, init(clientInfo), bearer(token));
  expect(response.status).toBe(200);
  await response.json();
  const id = response.headers.get('mcp-session-id')!;
  const initialized = await post(p.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer(token), 'mcp-session-id': id });
  expect(initialized.status).toBe(202);
  return id;
}

async function toolText(response: Response): Promise<{ text: string; isError: boolean }> {
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { content: { text: string }[]; isError?: boolean } };
  return { text: body.result.content[0]!.text, isError: body.result.isError === true };
}

describe('Protected Resource Metadata', () => {
  test('is served without a token at the path-aware and the root well-known URL, with every declared scope', async () => {
    served = await protectedHttp();
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const response = await fetch(`${served.base}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: RESOURCE,
        authorization_servers: [served.as.issuer],
        scopes_supported: [ENDPOINT_SCOPE, 'notes:read', 'notes:write'],
        bearer_methods_supported: ['header'],
      });
    }
    const preflight = await fetch(`${served.base}/.well-known/oauth-protected-resource/mcp`, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
    const head = await fetch(`${served.base}/.well-known/oauth-protected-resource/mcp`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await fetch(`${served.base}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' })).status).toBe(405);
  });

  test('a scope declared by a tool registered later is in scopes_supported', async () => {
    served = await protectedHttp();
    served.server.registry.registerTool({ name: 'admin', requiredScopes: ['admin:all'], handler: () => 'ok' });
    const document = (await (await fetch(`${served.base}/.well-known/oauth-protected-resource`)).json()) as { scopes_supported: string[] };
    expect(document.scopes_supported).toContain('admin:all');
  });

  test('the Host guard still applies to it', async () => {
    served = await protectedHttp();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: served!.http.port, path: '/.well-known/oauth-protected-resource', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });
});

describe('challenges', () => {
  test('no token: 401 naming resource_metadata and the endpoint scope, with no error code; nothing reaches the server', async () => {
    served = await protectedHttp();
    for (const response of [
      await post(served.url, init()),
      await post(served.url, init(), { authorization: 'Basic YWxpY2U6cHc=' }),
      await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'anything' } }),
      await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': 'anything' } }),
      await fetch(served.url, { method: 'PUT' }),
    ]) {
      expect(response.status).toBe(401);
      expect(challengeParams(response.headers.get('www-authenticate'))).toEqual({ resource_metadata: METADATA_URL, scope: ENDPOINT_SCOPE });
      expect(response.headers.get('content-type')).toBe('application/json');
    }
    expect(served.server.stats().connections).toBe(0);
    expect(served.http.handler.stats().sessions).toBe(0);
  });

  test('a malformed Authorization header or a token in the query string: 400 invalid_request', async () => {
    served = await protectedHttp();
    const token = await served.token();
    for (const [url, headers] of [
      [served.url, { authorization: 'Bearer' }],
      [served.url, { authorization: 'Bearer not a token' }],
      [`${served.url}?access_token=${token}`, bearer(token)],
    ] as const) {
      const response = await post(url, init(), headers);
      expect(response.status).toBe(400);
      expect(challengeParams(response.headers.get('www-authenticate'))).toMatchObject({ error: 'invalid_request' });
      expect(await response.json()).toMatchObject({ error: 'invalid_request' });
    }
  });

  test('a valid token is served; expired on the virtual clock it is 401 invalid_token', async () => {
    served = await protectedHttp();
    const token = await served.token({ expiresIn: 60 });
    const session = await openSession(served, token);
    expect((await toolText(await post(served.url, call(2, 'whoami'), { ...bearer(token), 'mcp-session-id': session }))).text).toBe(`alice [${ENDPOINT_SCOPE}]`);
    served.clock.advance(60_000);
    const expired = await post(served.url, call(3, 'whoami'), { ...bearer(token), 'mcp-session-id': session });
    expect(expired.status).toBe(401);
    expect(challengeParams(expired.headers.get('www-authenticate'))).toMatchObject({ error: 'invalid_token', error_description: 'the token has expired', resource_metadata: METADATA_URL });
  });

  test.each([
    ['another audience', { aud: 'https://other.example.com/mcp' }, 'the token is not for this resource'],
    ['another issuer', { iss: 'http://127.0.0.1:1/other' }, 'the token is from another issuer'],
  ])('a token for %s is 401 invalid_token', async (_what, claims, description) => {
    served = await protectedHttp();
    const response = await post(served.url, init(), bearer(await served.token(claims)));
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers.get('www-authenticate'))).toMatchObject({ error: 'invalid_token', error_description: description });
    expect(served.http.handler.stats().sessions).toBe(0);
  });

  test('a token signed with an algorithm the resource does not allow is 401 invalid_token', async () => {
    served = await protectedHttp({ jwt: { algorithms: ['RS256'] } });
    const es256 = await served.token({}, { keyIndex: 1 });
    const response = await post(served.url, init(), bearer(es256));
    expect(response.status).toBe(401);
    expect(challengeParams(response.headers.get('www-authenticate'))).toMatchObject({ error: 'invalid_token', error_description: "the token's algorithm is not allowed" });
  });

  test('a storm of unknown kids is 401 for each and costs the JWKS at most one refetch', async () => {
    served = await protectedHttp();
    expect((await post(served.url, init(), bearer(await served.token()))).status).toBe(200);
    expect(served.as.hits.get('/jwks')).toBe(1);
    const storm = await Promise.all(Array.from({ length: 25 }, async (_, i) => post(served!.url, init(), bearer(await served!.token({}, { kid: `made-up-${i}` })))));
    expect(storm.map((response) => response.status)).toEqual(Array(25).fill(401));
    expect(served.as.hits.get('/jwks')).toBeLessThanOrEqual(2);
  });

  test('an authenticator that breaks is a 500, never a pass', async () => {
    served = await protectedHttp({ http: { authenticator: { authenticate: () => Promise.reject(new Error('boom')) } } });
    const response = await post(served.url, init(), bearer('anything'));
    expect(response.status).toBe(500);
    expect(served.http.handler.stats().sessions).toBe(0);
  });
});

describe('scopes', () => {
  test('a token without the endpoint scope is 403 insufficient_scope naming it', async () => {
    served = await protectedHttp();
    const response = await post(served.url, init(), bearer(await served.token({ scope: 'notes:read' })));
    expect(response.status).toBe(403);
    expect(challengeParams(response.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope', scope: ENDPOINT_SCOPE, resource_metadata: METADATA_URL });
  });

  test('a tool call needing a scope the token lacks is 403 before any stream opens; a stepped-up token on the same session runs it', async () => {
    served = await protectedHttp();
    const token = await served.token();
    const session = await openSession(served, token);
    const refused = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(token), 'mcp-session-id': session },
      body: JSON.stringify(call(2, 'delete_note')),
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(challengeParams(refused.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope', scope: `${ENDPOINT_SCOPE} notes:write` });
    const stepped = await served.token({ scope: `${ENDPOINT_SCOPE} notes:write` });
    const sse = await fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer(stepped), 'mcp-session-id': session },
      body: JSON.stringify(call(3, 'delete_note')),
    });
    expect(sse.status).toBe(200);
    const reader = new SseReader(sse);
    const reply = await reader.nextMessage();
    // The handler saw the stepped-up principal, not the one that opened the session.
    expect(reply.message).toMatchObject({ id: 3, result: { content: [{ text: `deleted by alice [${ENDPOINT_SCOPE} notes:write]` }] } });
    // The first token still works on the session for what it may do.
    expect((await toolText(await post(served.url, call(4, 'whoami'), { ...bearer(token), 'mcp-session-id': session }))).text).toBe(`alice [${ENDPOINT_SCOPE}]`);
  });

  test('resources/read and prompts/get are gated the same way; an unknown target falls through to the server', async () => {
    served = await protectedHttp();
    const token = await served.token();
    const session = await openSession(served, token);
    const headers = { ...bearer(token), 'mcp-session-id': session };
    for (const message of [
      { jsonrpc: '2.0', id: 5, method: 'resources/read', params: { uri: 'notes://secret' } },
      { jsonrpc: '2.0', id: 6, method: 'resources/read', params: { uri: 'notes://by-id/7' } },
      { jsonrpc: '2.0', id: 7, method: 'prompts/get', params: { name: 'redact' } },
    ]) {
      const response = await post(served.url, message, headers);
      expect(response.status).toBe(403);
      expect(challengeParams(response.headers.get('www-authenticate')).error).toBe('insufficient_scope');
    }
    expect((await post(served.url, { jsonrpc: '2.0', id: 8, method: 'resources/read', params: { uri: 'notes://public' } }, headers)).status).toBe(200);
    const unknown = await post(served.url, call(9, 'no_such_tool'), headers);
    expect(unknown.status).toBe(200);
    expect(await unknown.json()).toMatchObject({ id: 9, error: { code: -32601 } });
  });

  test('lists leave out what the principal lacks the scopes for', async () => {
    served = await protectedHttp();
    const list = async (token: string, method: string) => {
      const session = await openSession(served!, token);
      const response = await post(served!.url, { jsonrpc: '2.0', id: 2, method }, { ...bearer(token), 'mcp-session-id': session });
      return (await response.json()) as { result: Record<string, { name: string }[]> };
    };
    const narrow = await served.token();
    const broad = await served.token({ scope: `${ENDPOINT_SCOPE} notes:read notes:write` });
    const names = (result: { name: string }[]) => result.map((item) => item.name);
    expect(names((await list(narrow, 'tools/list')).result.tools!)).toEqual(['whoami']);
    expect(names((await list(broad, 'tools/list')).result.tools!)).toEqual(['whoami', 'delete_note']);
    expect(names((await list(narrow, 'resources/list')).result.resources!)).toEqual(['public']);
    expect(names((await list(broad, 'resources/list')).result.resources!)).toEqual(['public', 'secret']);
    expect((await list(narrow, 'resources/templates/list')).result.resourceTemplates).toEqual([]);
    expect(names((await list(narrow, 'prompts/list')).result.prompts!)).toEqual(['summarize']);
    expect(names((await list(broad, 'prompts/list')).result.prompts!)).toEqual(['summarize', 'redact']);
  });
});

describe('identity comes from the token only', () => {
  test('a forged identity in clientInfo, arguments and headers changes nothing', async () => {
    served = await protectedHttp();
    const token = await served.token();
    const forged = { sub: 'root', subject: 'root', scopes: ['notes:write'], key: 'forged' };
    const session = await openSession(served, token, { name: 'evil', version: '1', principal: forged });
    const headers = {
      ...bearer(token),
      'mcp-session-id': session,
      'x-forwarded-user': 'root',
      'x-user': 'root',
      'x-principal': JSON.stringify(forged),
    };
    const whoami = await post(served.url, { ...call(2, 'whoami', { principal: forged }), params: { name: 'whoami', arguments: { principal: forged }, _meta: { principal: forged } } }, headers);
    expect((await toolText(whoami)).text).toBe(`alice [${ENDPOINT_SCOPE}]`);
    const escalate = await post(served.url, call(3, 'delete_note', { principal: forged }), headers);
    expect(escalate.status).toBe(403);
    // Headers alone are no credentials.
    const { authorization: _dropped, ...forgedOnly } = headers;
    expect((await post(served.url, call(4, 'whoami'), forgedOnly)).status).toBe(401);
  });
});
