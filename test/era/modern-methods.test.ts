/**
 * The modern methods (2026-07-28) over the core: server/discover, the
 * shared methods with resultType, serverInfo and cache hints, the removed
 * legacy methods, the modern error codes, per-request logging, and no
 * request ever sent to a modern client.
 */
import { describe, expect, test } from 'vitest';
import { allowAll, ConfigError, createServer, Registry, type McpServer } from '../../lib/index.js';
import { makeServer, Peer, rpc, settle, type Message } from '../contract/helpers.js';
import { CAPS, eraServer, FIXTURE_INFO, LEVEL, MODERN, modernRpc, SERVER_INFO, type ModernOptions } from './modern-helpers.js';

async function call(server: McpServer, id: unknown, method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): Promise<Message> {
  return (await server.handleMessage(modernRpc(id, method, params, options), { connId: 'direct' })) as Message;
}

const serverInfo = { [SERVER_INFO]: FIXTURE_INFO };

describe('server/discover', () => {
  test('modern revisions only, capabilities, instructions, cache hints, resultType, serverInfo', async () => {
    const { server } = eraServer();
    expect(await call(server, 1, 'server/discover')).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: [MODERN],
        capabilities: {
          tools: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          prompts: { listChanged: true },
          logging: {},
          completions: {},
        },
        instructions: 'be nice',
        ttlMs: 0,
        cacheScope: 'private',
        _meta: serverInfo,
      },
    });
  });

  test('no instructions when none are configured; hints from cacheHints (discover is never per caller)', async () => {
    const server = makeServer({ cacheHints: { ttlMs: 60_000, cacheScope: 'public' }, readAuthorizer: allowAll() });
    const reply = await call(server, 1, 'server/discover');
    expect(reply.result).not.toHaveProperty('instructions');
    expect(reply.result).toMatchObject({ ttlMs: 60_000, cacheScope: 'public' });
  });
});

describe('the shared methods on the modern wire', () => {
  test('tools/list: the legacy listing plus resultType, cache hints (private: the tool authorizer decides per caller) and serverInfo', async () => {
    const { server } = eraServer({ cacheHints: { ttlMs: 5000, cacheScope: 'public' } });
    const reply = await call(server, 1, 'tools/list');
    const legacy = (await server.handleMessage(rpc(1, 'tools/list'), { connId: 'direct' })) as Message;
    expect(reply.result).toStrictEqual({ resultType: 'complete', ...legacy.result, ttlMs: 5000, cacheScope: 'private', _meta: serverInfo });
  });

  test('every cacheable list is public when configured so and no authorizer decides it', async () => {
    const registry = new Registry().registerTool({ name: 't', handler: () => 'x' }).registerResource({ uri: 'a://b', name: 'b', read: () => 'B' });
    const server = makeServer({ registry, cacheHints: { ttlMs: 1000, cacheScope: 'public', methods: { 'resources/read': { ttlMs: 10 } } } });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      expect((await call(server, method, method)).result).toMatchObject({ resultType: 'complete', ttlMs: 1000, cacheScope: 'public' });
    }
    expect((await call(server, 'r', 'resources/read', { uri: 'a://b' })).result).toMatchObject({ ttlMs: 10, cacheScope: 'public' });
    // A retry that carried MRTR inputs depends on more than the cache key holds.
    expect((await call(server, 's', 'resources/read', { uri: 'a://b', inputResponses: {} })).result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    // A requestState this server did not seal for this request is refused before the read runs.
    expect((await call(server, 't', 'resources/read', { uri: 'a://b', requestState: 'opaque' })).error).toMatchObject({ code: -32602, data: { reason: 'invalid_request_state' } });
  });

  test('a read authorizer makes every gated cacheable result private', async () => {
    const server = makeServer({ readAuthorizer: allowAll(), cacheHints: { cacheScope: 'public' } });
    for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      expect((await call(server, method, method)).result.cacheScope).toBe('private');
    }
  });

  test('resources/read: contents with hints; unknown -32602 (never -32002, never empty contents); the read deny is -31090', async () => {
    const { server } = eraServer();
    expect((await call(server, 1, 'resources/read', { uri: 'demo://a' })).result).toStrictEqual({
      resultType: 'complete',
      contents: [{ uri: 'demo://a', text: 'A', mimeType: 'text/plain' }],
      ttlMs: 0,
      cacheScope: 'private',
      _meta: serverInfo,
    });
    expect((await call(server, 2, 'resources/read', { uri: 'demo://missing' })).error).toStrictEqual({
      code: -32602,
      message: 'Resource not found: demo://missing',
      data: { uri: 'demo://missing' },
    });
    expect((await call(server, 3, 'resources/read', { uri: 'demo://notes/9' })).error.code).toBe(-32602);
    expect((await call(server, 4, 'resources/read', { uri: 'demo://secret' })).error).toStrictEqual({
      code: -31090,
      message: 'authorization_required: resources/read',
      data: { error: 'authorization_required', method: 'resources/read', detail: 'not for you' },
    });
  });

  test('tools/call: the result with resultType and serverInfo (no cache hints), the tool\'s own _meta kept', async () => {
    const { server } = eraServer();
    expect((await call(server, 1, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })).result).toStrictEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'hi' }],
      _meta: serverInfo,
    });
    expect((await call(server, 2, 'tools/call', { name: 'with_meta' })).result._meta).toStrictEqual({ 'com.example/trace': 'abc', ...serverInfo });
  });

  test('tools/call of an unknown tool is -32602 (the legacy wire keeps the seed\'s -32601)', async () => {
    const server = makeServer({ authorizer: allowAll() });
    expect((await call(server, 1, 'tools/call', { name: 'nope' })).error).toStrictEqual({ code: -32602, message: 'Tool not found: nope' });
    expect(((await server.handleMessage(rpc(2, 'tools/call', { name: 'nope' }))) as Message).error.code).toBe(-32601);
    expect((await call(server, 3, 'no/such/method')).error).toStrictEqual({ code: -32601, message: 'Unknown method: no/such/method' });
  });

  test('prompts/get and completion/complete carry resultType and serverInfo; their errors are the legacy ones', async () => {
    const { server } = eraServer();
    expect((await call(server, 1, 'prompts/get', { name: 'greet', arguments: { who: 'you' } })).result).toStrictEqual({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello you' } }],
      _meta: serverInfo,
    });
    expect((await call(server, 2, 'prompts/get', { name: 'greet' })).error.code).toBe(-32602);
    expect(
      (await call(server, 3, 'completion/complete', { ref: { type: 'ref/resource', uri: 'demo://notes/{id}' }, argument: { name: 'id', value: '1' } })).result,
    ).toStrictEqual({ resultType: 'complete', completion: { values: ['1', '12'], total: 2, hasMore: false }, _meta: serverInfo });
  });

  test('the methods 2026-07-28 removed are -32601', async () => {
    const { server } = eraServer();
    for (const [method, params] of [
      ['initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
      ['ping', {}],
      ['logging/setLevel', { level: 'debug' }],
      ['resources/subscribe', { uri: 'demo://a' }],
      ['resources/unsubscribe', { uri: 'demo://a' }],
    ] as const) {
      expect((await call(server, method, method, params)).error).toStrictEqual({ code: -32601, message: `Unknown method: ${method}` });
    }
    expect(server.stats().resourceSubscriptions).toBe(0);
  });
});

describe('the client is never sent a request on a modern exchange', () => {
  test.each([
    ['ask_user', { elicitation: {} }],
    ['ask_url', { elicitation: { url: {} } }],
    ['sample', { sampling: {} }],
    ['roots', { roots: {} }],
  ] as const)('%s without the capability: -32021 naming it; declared: input_required carrying the request (MRTR)', async (tool, required) => {
    const { server } = eraServer();
    const peer = new Peer(server, { transport: 'stdio' });
    peer.send(modernRpc(1, 'tools/call', { name: tool }));
    const missing = await peer.waitFor((m) => m.id === 1);
    expect(missing.error.code).toBe(-32021);
    expect(missing.error.data).toStrictEqual({ requiredCapabilities: required });
    expect(missing.error.message).toMatch(/^Missing required client capability: the request did not declare the \w+ capability/);
    peer.send(modernRpc(2, 'tools/call', { name: tool }, { capabilities: required }));
    const declared = await peer.waitFor((m) => m.id === 2);
    const method = tool === 'sample' ? 'sampling/createMessage' : tool === 'roots' ? 'roots/list' : 'elicitation/create';
    expect(declared.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'rxmcp.1': { method } }, requestState: expect.any(String) });
    await settle();
    expect(peer.received.filter((m) => 'method' in m)).toEqual([]);
    expect(server.stats().pendingClientRequests).toBe(0);
    peer.close();
  });

  test('a completer that asks for input: -32021 too (completion can never be input_required)', async () => {
    const { server } = eraServer();
    const reply = await call(server, 1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'pick' }, argument: { name: 'thing', value: '' } });
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  test('a handler that catches the capability error adapts, and sees the request\'s own capabilities', async () => {
    const { server } = eraServer();
    const reply = await call(server, 1, 'tools/call', { name: 'adaptive' }, { capabilities: { sampling: {} } });
    expect(reply.result.content[0].text).toBe('no roots (InputNeededError; era modern; declared {"sampling":{}})');
  });

  test('an ASK is answered input_required with the approval form (no request sent, nothing parked); the tool has not run', async () => {
    const { server, runs } = eraServer();
    const peer = new Peer(server, { transport: 'memory' });
    peer.send(modernRpc(1, 'tools/call', { name: 'wipe' }, { capabilities: { elicitation: {} } }));
    const asked = await peer.waitFor((m) => m.id === 1);
    expect(asked.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'rxmcp.approve': { method: 'elicitation/create', params: { mode: 'form', message: 'Wipe it?' } } },
      requestState: expect.any(String),
    });
    expect(runs).toEqual([]);
    expect(peer.received.filter((m) => m.method === 'elicitation/create')).toEqual([]);
    expect(server.stats().parked).toBe(0);
    peer.close();
  });

  test('ctx.era and ctx.modern: the validated envelope, not the raw _meta', async () => {
    const { server } = eraServer();
    const reply = await call(server, 1, 'tools/call', { name: 'whoami' }, { capabilities: { roots: {} }, logLevel: 'info' });
    expect(JSON.parse(reply.result.content[0].text)).toStrictEqual({
      era: 'modern',
      modern: { protocolVersion: MODERN, clientCapabilities: { roots: {} }, clientInfo: { name: 'modern-test', version: '1.0.0' }, logLevel: 'info' },
    });
    const legacy = (await server.handleMessage(rpc(2, 'tools/call', { name: 'whoami' }))) as Message;
    expect(JSON.parse(legacy.result.content[0].text)).toStrictEqual({ era: 'legacy', modern: null });
  });
});

describe('logging per request', () => {
  async function logsOf(options: ModernOptions): Promise<Message[]> {
    const { server } = eraServer();
    const peer = new Peer(server, { transport: 'stdio' });
    peer.send(modernRpc(1, 'tools/call', { name: 'chatty', _meta: { progressToken: 'p' } }, options));
    await peer.waitFor((m) => m.id === 1);
    peer.close();
    return peer.received.filter((m) => m.method === 'notifications/message');
  }

  test('no logLevel: no notifications/message at all (progress still flows)', async () => {
    const { server } = eraServer();
    const peer = new Peer(server, { transport: 'stdio' });
    peer.send(modernRpc(1, 'tools/call', { name: 'chatty', _meta: { progressToken: 'p' } }));
    await peer.waitFor((m) => m.id === 1);
    expect(peer.received.map((m) => m.method ?? 'reply')).toEqual(['notifications/progress', 'reply']);
    peer.close();
  });

  test('logLevel warning: warning and above only', async () => {
    expect((await logsOf({ logLevel: 'warning' })).map((m) => m.params.level)).toEqual(['warning', 'error']);
  });

  test('logLevel debug: everything, as the handler logged it', async () => {
    expect((await logsOf({ logLevel: 'debug' })).map((m) => m.params)).toEqual([
      { level: 'debug', data: 'quiet' },
      { level: 'warning', data: 'careful' },
      { level: 'error', logger: 'tests', data: { loud: true } },
    ]);
  });
});

describe('the cacheHints option', () => {
  test.each([
    [{ ttlMs: -1 }, /ttlMs must be a non-negative integer/],
    [{ ttlMs: 1.5 }, /ttlMs must be a non-negative integer/],
    [{ cacheScope: 'shared' }, /cacheScope must be "public" or "private"/],
    [{ methods: { 'tools/call': { ttlMs: 1 } } }, /not a cacheable method/],
    [{ methods: { 'tools/list': { ttl: 1 } } }, /unknown key ttl/],
    [{ methods: [] }, /methods must be an object/],
    ['public', /cacheHints must be an object/],
  ])('%j is refused, naming cacheHints', (value, message) => {
    let thrown: unknown;
    try {
      createServer({ cacheHints: value as never });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).option).toBe('cacheHints');
    expect((thrown as Error).message).toMatch(message);
  });
});

test('the envelope keys the client sent stay readable in ctx.meta', async () => {
  const { server } = eraServer();
  const reply = await call(server, 1, 'tools/call', { name: 'whoami' }, { meta: { [LEVEL]: 'error', [CAPS]: {} } });
  expect(JSON.parse(reply.result.content[0].text).modern.logLevel).toBe('error');
});
