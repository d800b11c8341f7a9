/**
 * The modern era on Streamable HTTP, rung by rung (transports/http/classify-era.ts):
 * every refusal's HTTP status and JSON-RPC code, the id echoed, and what is
 * served with no session at all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CAPS, legacyInitialize, MODERN, modernRpc, PV } from '../era/modern-helpers.js';
import { base64Header, modernPost, post, REGION_TOOL, serveModern, standardHeaders } from './helpers.js';

let served: Awaited<ReturnType<typeof serveModern>>;
let url: string;
beforeAll(async () => {
  served = await serveModern();
  url = served.url;
});
afterAll(() => served.close());

async function expectRefusal(response: Response, status: number, code: number, id: unknown) {
  expect(response.status).toBe(status);
  expect(response.headers.get('mcp-session-id')).toBeNull();
  const body = ((await response.json()) as any);
  expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code } });
  return body;
}

describe('served statelessly', () => {
  test('a tools/call: 200 JSON, no session minted, no session held', async () => {
    const response = await modernPost(url, 1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }, { accept: 'application/json' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(((await response.json()) as any)).toMatchObject({ id: 1, result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] } });
    expect(served.http.handler.stats().sessions).toBe(0);
  });

  test('server/discover, and a handler error stays in-band on 200', async () => {
    const discover = await modernPost(url, 'd', 'server/discover');
    expect(discover.status).toBe(200);
    expect(((await discover.json()) as any)).toMatchObject({ id: 'd', result: { supportedVersions: [MODERN] } });
    const missing = await modernPost(url, 2, 'resources/read', { uri: 'demo://missing' });
    expect(missing.status).toBe(200);
    expect(((await missing.json()) as any)).toMatchObject({ id: 2, error: { code: -32602 } });
  });

  test('a session header on a modern request is ignored (never echoed)', async () => {
    const response = await modernPost(url, 3, 'tools/list', {}, { headers: { 'mcp-session-id': 'nonexistent' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect((((await response.json()) as any)).result.tools.length).toBeGreaterThan(0);
  });

  test('-32021 (an undeclared capability) is always 400', async () => {
    const response = await modernPost(url, 4, 'tools/call', { name: 'ask_user' });
    const body = await expectRefusal(response, 400, -32021, 4);
    expect(body.error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
  });

  test('a modern notification: 202, no body', async () => {
    const claimed = await post(url, { jsonrpc: '2.0', method: 'notifications/whatever', params: { _meta: { [PV]: MODERN } } }, {});
    expect(claimed.status).toBe(202);
    expect(await claimed.text()).toBe('');
    const byHeader = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': MODERN });
    expect(byHeader.status).toBe(202);
  });
});

describe('the era rungs', () => {
  test('header version differs from the claim: 400 -32020', async () => {
    await expectRefusal(await modernPost(url, 10, 'tools/list', {}, { headers: { 'mcp-protocol-version': '2025-11-25' } }), 400, -32020, 10);
  });

  test('claim of a revision we do not serve: 400 -32022 with supported and requested', async () => {
    const response = await modernPost(url, 11, 'tools/list', {}, { meta: { [PV]: 'v999' }, headers: { 'mcp-protocol-version': 'v999' } });
    const body = await expectRefusal(response, 400, -32022, 11);
    expect(body.error.data).toEqual({ supported: [MODERN], requested: 'v999' });
  });

  test('a bad envelope: 400 -32602 naming the key (never a silent fall-back to legacy)', async () => {
    const response = await modernPost(url, 12, 'tools/list', {}, { meta: { [CAPS]: undefined } });
    const body = await expectRefusal(response, 400, -32602, 12);
    expect(body.error.data.key).toBe(CAPS);
  });

  test('no claim with a modern header: 400 -32602 naming the missing envelope; initialize: 400 -32020', async () => {
    const bare = await post(url, { jsonrpc: '2.0', id: 13, method: 'tools/list' }, standardHeaders('tools/list'));
    const body = await expectRefusal(bare, 400, -32602, 13);
    expect(body.error.data.envelope.missing).toEqual([PV, CAPS]);
    await expectRefusal(await post(url, legacyInitialize(14), standardHeaders('initialize')), 400, -32020, 14);
  });

  test('a claimed initialize, a removed method, an unknown method: 404 -32601', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'no/such']) {
      await expectRefusal(await modernPost(url, method, method, {}), 404, -32601, method);
    }
  });
});

describe('standard headers', () => {
  test('missing MCP-Protocol-Version, missing or different Mcp-Method: 400 -32020', async () => {
    await expectRefusal(await modernPost(url, 20, 'tools/list', {}, { headers: { 'mcp-protocol-version': undefined } }), 400, -32020, 20);
    await expectRefusal(await modernPost(url, 21, 'tools/list', {}, { headers: { 'mcp-method': undefined } }), 400, -32020, 21);
    await expectRefusal(await modernPost(url, 22, 'tools/list', {}, { headers: { 'mcp-method': 'TOOLS/LIST' } }), 400, -32020, 22);
  });

  test('whitespace around values is accepted', async () => {
    const response = await modernPost(url, 23, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-method': '  tools/call ', 'mcp-name': ' echo  ' } });
    expect(response.status).toBe(200);
  });

  test('Mcp-Name: missing or different is 400 -32020, for tools, prompts and resources', async () => {
    await expectRefusal(await modernPost(url, 24, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': undefined } }), 400, -32020, 24);
    await expectRefusal(await modernPost(url, 25, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-name': 'whoami' } }), 400, -32020, 25);
    await expectRefusal(await modernPost(url, 26, 'prompts/get', { name: 'greet', arguments: { who: 'a' } }, { headers: { 'mcp-name': 'Greet' } }), 400, -32020, 26);
    await expectRefusal(await modernPost(url, 27, 'resources/read', { uri: 'demo://a' }, { headers: { 'mcp-name': 'demo://b' } }), 400, -32020, 27);
    const read = await modernPost(url, 28, 'resources/read', { uri: 'demo://a' });
    expect(((await read.json()) as any)).toMatchObject({ id: 28, result: { contents: [{ uri: 'demo://a', text: 'A' }] } });
  });

  test('Mcp-Name in Base64: decoded; broken encoding refused; a value without both markers is literal', async () => {
    const ok = await modernPost(url, 30, 'prompts/get', { name: 'greet', arguments: { who: 'ü' } }, { headers: { 'mcp-name': base64Header('greet') } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any)).toMatchObject({ id: 30, result: { messages: [{ content: { text: 'Hello ü' } }] } });
    await expectRefusal(await modernPost(url, 31, 'prompts/get', { name: 'greet' }, { headers: { 'mcp-name': '=?base64?Z3JlZXQ?=' } }), 400, -32020, 31);
    await expectRefusal(await modernPost(url, 32, 'prompts/get', { name: 'greet' }, { headers: { 'mcp-name': '=?base64?Z3J!ZXQ=?=' } }), 400, -32020, 32);
    await expectRefusal(await modernPost(url, 33, 'prompts/get', { name: 'greet' }, { headers: { 'mcp-name': base64Header('other') } }), 400, -32020, 33);
    await expectRefusal(await modernPost(url, 34, 'prompts/get', { name: 'greet' }, { headers: { 'mcp-name': '=?base64?Z3JlZXQ=' } }), 400, -32020, 34);
  });
});

describe('Mcp-Param-* (x-mcp-header)', () => {
  const call = (id: number, args: Record<string, unknown>, headers: Record<string, string | undefined>) =>
    modernPost(url, id, 'tools/call', { name: REGION_TOOL, arguments: args }, { headers });

  test('matching headers (string, integer, nested boolean, Base64) are served', async () => {
    const response = await call(40, { region: 'eu-west', count: 3, nested: { flag: true } }, { 'mcp-param-region': 'eu-west', 'mcp-param-count': '3.0', 'mcp-param-flag': 'true' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any)).toMatchObject({ id: 40, result: { content: [{ text: JSON.stringify({ region: 'eu-west', count: 3, nested: { flag: true } }) }] } });
    const encoded = await call(41, { region: 'Zürich' }, { 'mcp-param-region': base64Header('Zürich') });
    expect(encoded.status).toBe(200);
  });

  test('an absent or null argument needs no header', async () => {
    expect((await call(42, { region: null }, {})).status).toBe(200);
    expect((await call(43, {}, {})).status).toBe(200);
  });

  test('missing, different or badly encoded: 400 -32020', async () => {
    await expectRefusal(await call(44, { region: 'eu' }, {}), 400, -32020, 44);
    await expectRefusal(await call(45, { region: 'eu' }, { 'mcp-param-region': 'us' }), 400, -32020, 45);
    await expectRefusal(await call(46, { count: 3 }, { 'mcp-param-count': '4' }), 400, -32020, 46);
    await expectRefusal(await call(47, { nested: { flag: false } }, { 'mcp-param-flag': 'true' }), 400, -32020, 47);
    await expectRefusal(await call(48, { region: 'eu' }, { 'mcp-param-region': '=?base64?***?=' }), 400, -32020, 48);
  });
});

describe('GET and DELETE', () => {
  test('a modern MCP-Protocol-Version and no session: 405', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(url, { method, headers: { 'mcp-protocol-version': MODERN, accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      await response.body?.cancel();
    }
  });
});

describe('legacy traffic is still legacy', () => {
  test('a claim-less request without a modern header is the session code (400: no session)', async () => {
    const response = await post(url, { jsonrpc: '2.0', id: 50, method: 'tools/list' }, {});
    expect(response.status).toBe(400);
    expect(((await response.json()) as any)).toMatchObject({ id: null, error: { code: -32000 } });
  });

  test('an unknown header version on a claim-less POST: the legacy refusal, as before', async () => {
    const response = await post(url, { jsonrpc: '2.0', id: 51, method: 'tools/list' }, { 'mcp-protocol-version': 'v999' });
    expect(response.status).toBe(400);
    expect((((await response.json()) as any)).error.message).toContain('unsupported MCP-Protocol-Version "v999"');
  });

  test('initialize mints a session; a claiming request on it is served modern, the session untouched', async () => {
    const init = await post(url, legacyInitialize(1), {}, 'application/json');
    expect(init.status).toBe(200);
    const session = init.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    ((await init.json()) as any);
    const modern = await modernPost(url, 60, 'tools/call', { name: 'whoami' }, { headers: { 'mcp-session-id': session } });
    expect(modern.headers.get('mcp-session-id')).toBeNull();
    const body = ((await modern.json()) as any);
    expect(JSON.parse(body.result.content[0].text).era).toBe('modern');
    const legacy = await post(url, { jsonrpc: '2.0', id: 61, method: 'tools/call', params: { name: 'whoami' } }, { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, 'application/json');
    expect(legacy.headers.get('mcp-session-id')).toBe(session);
    expect(JSON.parse((((await legacy.json()) as any)).result.content[0].text).era).toBe('legacy');
  });
});

test('unused helper parity', () => expect(modernRpc(1, 'x').params._meta[PV]).toBe(MODERN));
