/**
 * The modern (2026-07-28) Streamable HTTP path behind the same
 * authentication as the legacy one: no token is the 401 challenge before the
 * body decides anything, a token's principal reaches the handler of a
 * stateless request (and is its fairness key), and a tool's declared scope is
 * the 403 step-up before any answer starts.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { bearer, challengeParams, protectedHttp, type ProtectedHttp } from './protected-http.js';

const MODERN = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};

let served: ProtectedHttp | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function modernCall(url: string, id: number, name: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: meta } }),
  });
}

describe('modern Streamable HTTP behind an authenticator', () => {
  test('no token: 401 challenge; a token: the principal in the handler, no session; a scoped tool: 403 step-up', async () => {
    served = await protectedHttp();
    const anonymous = await modernCall(served.url, 1, 'whoami', {});
    expect(anonymous.status).toBe(401);
    expect(challengeParams(anonymous.headers.get('www-authenticate'))).toHaveProperty('resource_metadata');

    const token = await served.token();
    const answered = await modernCall(served.url, 2, 'whoami', bearer(token));
    expect(answered.status).toBe(200);
    expect(answered.headers.get('mcp-session-id')).toBeNull();
    const body = (await answered.json()) as { result: { content: { text: string }[]; resultType: string } };
    expect(body.result.resultType).toBe('complete');
    expect(body.result.content[0]!.text).toBe('alice [mcp:use]');

    const stepUp = await modernCall(served.url, 3, 'delete_note', bearer(token));
    expect(stepUp.status).toBe(403);
    expect(challengeParams(stepUp.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope' });
    const wider = await served.token({ scope: 'mcp:use notes:write' });
    const done = await modernCall(served.url, 4, 'delete_note', bearer(wider));
    expect(done.status).toBe(200);
    expect(((await done.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text).toBe('deleted by alice [mcp:use notes:write]');
  });
});
