/**
 * Contract: the read seam. Every read method asks the read authorizer with
 * the method name and the exact arguments the contract names; a deny is
 * JSON-RPC -32090; an ask is a deny (interactive_approval_unsupported) that
 * never shows the prompt. The context is exactly {connId, transport}, both
 * set by the server.
 */
import { describe, expect, test } from 'vitest';
import { Registry, type Authorizer } from '../../lib/index.js';
import { Peer, collect, makeServer, note, rpc, settle } from './helpers.js';

function fullRegistry(reads: string[] = []) {
  const registry = new Registry();
  registry.registerTool({ name: 'tool', handler: () => 'x' });
  registry.registerResource({ uri: 'mem://a', name: 'a', read: (uri) => { reads.push(uri); return 'A'; } });
  registry.registerResourceTemplate({ uriTemplate: 'mem://t/{id}', name: 't', read: () => 'T' });
  registry.registerPrompt({
    name: 'p',
    arguments: [{ name: 'x' }],
    get: () => 'prompt text',
    complete: { x: () => ['one', 'two'] },
  });
  return registry;
}

const CASES: [string, Record<string, unknown> | undefined, Record<string, unknown>][] = [
  ['tools/list', undefined, {}],
  ['resources/list', undefined, {}],
  ['resources/templates/list', {}, {}],
  ['prompts/list', undefined, {}],
  ['resources/read', { uri: 'mem://a' }, { uri: 'mem://a' }],
  ['resources/subscribe', { uri: 'mem://a' }, { uri: 'mem://a' }],
  ['resources/unsubscribe', { uri: 'mem://a' }, { uri: 'mem://a' }],
  ['prompts/get', { name: 'p', arguments: { x: '1' } }, { name: 'p', arguments: { x: '1' } }],
  [
    'completion/complete',
    { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'x', value: 'o' } },
    { ref: { type: 'ref/prompt', name: 'p' } },
  ],
  ['logging/setLevel', { level: 'warning' }, { level: 'warning' }],
];

describe.each(CASES)('%s', (method, params, gateArgs) => {
  test('asks the read authorizer with (method, the contract\'s args, {connId, transport}) and answers when allowed', async () => {
    const seen: unknown[][] = [];
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: (...a) => { seen.push(a); return 'allow'; } });
    const peer = new Peer(server, { connId: 'reader', transport: 'http' });
    const reply = await peer.call(1, method, params);
    expect(reply.result).toBeDefined();
    expect(seen).toStrictEqual([[method, gateArgs, { connId: 'reader', transport: 'http' }]]);
    peer.close();
  });

  test('a deny is -32090 "authorization_required: <method>" with data {error, method, detail}, exactly', async () => {
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: () => ({ deny: 'no reading' }) });
    expect(await server.handleMessage(rpc('d', method, params))).toStrictEqual({
      jsonrpc: '2.0',
      id: 'd',
      error: {
        code: -32090,
        message: `authorization_required: ${method}`,
        data: { error: 'authorization_required', method, detail: 'no reading' },
      },
    });
  });

  test('an ask is a deny with detail interactive_approval_unsupported; the prompt text never appears', async () => {
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: () => ({ ask: 'SECRET PROMPT 42' }) });
    const peer = new Peer(server);
    await peer.initialize({ elicitation: {} });
    const reply = await peer.call('a', method, params);
    expect(reply.error).toStrictEqual({
      code: -32090,
      message: `authorization_required: ${method}`,
      data: { error: 'authorization_required', method, detail: 'interactive_approval_unsupported' },
    });
    await settle();
    expect(JSON.stringify(peer.received)).not.toContain('SECRET PROMPT');
    expect(peer.elicitations()).toEqual([]);
    peer.close();
  });

  test('a throwing read authorizer denies with authorizer_failed; an off-contract one with authorizer_contract_violation', async () => {
    const throwing = makeServer({ registry: fullRegistry(), readAuthorizer: () => { throw new Error('bug'); } });
    expect(((await throwing.handleMessage(rpc(1, method, params))) as any).error.data.detail).toBe('authorizer_failed');
    const weird = makeServer({ registry: fullRegistry(), readAuthorizer: () => 'ok' as any });
    expect(((await weird.handleMessage(rpc(1, method, params))) as any).error.data.detail).toBe('authorizer_contract_violation');
  });
});

describe('what a deny prevents', () => {
  const deny: Authorizer = () => ({ deny: 'no' });

  test('a denied resources/read never calls the reader', async () => {
    const reads: string[] = [];
    const server = makeServer({ registry: fullRegistry(reads), readAuthorizer: deny });
    await server.handleMessage(rpc(1, 'resources/read', { uri: 'mem://a' }));
    expect(reads).toEqual([]);
  });

  test('a denied tools/list never asks the tool authorizer', async () => {
    let asked = 0;
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: deny, authorizer: () => { asked += 1; return 'allow'; } });
    expect(((await server.handleMessage(rpc(1, 'tools/list'))) as any).error.code).toBe(-32090);
    expect(asked).toBe(0);
  });

  test('a denied resources/subscribe subscribes nothing', async () => {
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: deny });
    const peer = new Peer(server);
    await peer.call(1, 'resources/subscribe', { uri: 'mem://a' });
    server.resourceUpdated('mem://a');
    expect(peer.notifications('notifications/resources/updated')).toEqual([]);
    peer.close();
  });

  test('a denied logging/setLevel leaves the level alone', async () => {
    const server = makeServer({ readAuthorizer: deny });
    const peer = new Peer(server);
    await peer.call(1, 'logging/setLevel', { level: 'emergency' });
    server.notify('notifications/message', { level: 'info', data: 'still delivered' });
    expect(peer.notifications('notifications/message')).toHaveLength(1);
    peer.close();
  });

  test('the read gate does not cover tools/call, initialize or ping', async () => {
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: deny });
    expect(((await server.handleMessage(rpc(1, 'tools/call', { name: 'tool' }))) as any).result.content[0].text).toBe('x');
    expect(((await server.handleMessage(rpc(2, 'initialize', { protocolVersion: '2025-11-25', capabilities: {} }))) as any).result).toBeDefined();
    expect(await server.handleMessage(rpc(3, 'ping'))).toStrictEqual({ jsonrpc: '2.0', id: 3, result: {} });
  });
});

describe('logging/setLevel checks the level before the gate', () => {
  test.each([['loud'], ['WARNING'], [3], [undefined]])('level %j is -32602 "Invalid log level: <l>" without asking the gate', async (level) => {
    let asked = 0;
    const server = makeServer({ readAuthorizer: () => { asked += 1; return { deny: 'no' }; } });
    const params = level === undefined ? {} : { level };
    expect(await server.handleMessage(rpc(1, 'logging/setLevel', params))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: `Invalid log level: ${String(level)}` },
    });
    expect(asked).toBe(0);
  });

  test('a valid level answers {} exactly', async () => {
    expect(await makeServer().handleMessage(rpc(1, 'logging/setLevel', { level: 'debug' }))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {},
    });
  });
});

describe('the authorizer context', () => {
  function recording() {
    const contexts: any[] = [];
    const authorizer: Authorizer = (_n, _a, ctx) => {
      contexts.push(ctx);
      return 'allow';
    };
    return { contexts, authorizer };
  }

  test('holds exactly connId and transport, for both seams', async () => {
    const read = recording();
    const tool = recording();
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: read.authorizer, authorizer: tool.authorizer });
    await server.handleMessage(rpc(1, 'resources/list'));
    await server.handleMessage(rpc(2, 'tools/call', { name: 'tool' }));
    for (const ctx of [...read.contexts, ...tool.contexts]) {
      expect(Object.keys(ctx).sort()).toEqual(['connId', 'transport']);
    }
    expect(read.contexts).toHaveLength(1);
    expect(tool.contexts).toHaveLength(1);
  });

  test.each(['stdio', 'http', 'sse', 'ws'] as const)('transport is what connect declared: %s', async (transport) => {
    const read = recording();
    const tool = recording();
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: read.authorizer, authorizer: tool.authorizer, transport: 'unknown' });
    const peer = new Peer(server, { connId: `c-${transport}`, transport });
    await peer.initialize(); // stdio, sse and ws connections answer nothing but ping before it
    await peer.call(1, 'resources/list');
    await peer.call(2, 'tools/call', { name: 'tool' });
    expect(read.contexts).toStrictEqual([{ connId: `c-${transport}`, transport }]);
    expect(tool.contexts).toStrictEqual([{ connId: `c-${transport}`, transport }]);
    peer.close();
  });

  test('direct callers get the server\'s transport option, "unknown" by default', async () => {
    const read = recording();
    await makeServer({ readAuthorizer: read.authorizer }).handleMessage(rpc(1, 'prompts/list'));
    await makeServer({ readAuthorizer: read.authorizer, transport: 'stdio' }).handleMessage(rpc(1, 'prompts/list'), { connId: 'x' });
    await makeServer({ readAuthorizer: read.authorizer, transport: 'stdio' }).request(rpc(1, 'prompts/list'), 'y').reply;
    expect(read.contexts).toStrictEqual([
      { connId: 'default', transport: 'unknown' },
      { connId: 'x', transport: 'stdio' },
      { connId: 'y', transport: 'stdio' },
    ]);
  });

  test('a direct caller on a connection whose subscriber declared a transport gets that transport', async () => {
    const read = recording();
    const server = makeServer({ readAuthorizer: read.authorizer, transport: 'stdio' });
    const { subscription } = collect(server, 'sse-1', 'sse');
    await server.handleMessage(rpc(1, 'prompts/list'), { connId: 'sse-1' });
    subscription.unsubscribe();
    await server.handleMessage(rpc(2, 'prompts/list'), { connId: 'sse-1' });
    expect(read.contexts).toStrictEqual([
      { connId: 'sse-1', transport: 'sse' },
      { connId: 'sse-1', transport: 'stdio' },
    ]);
  });

  test('the client cannot set it: connId, transport or _meta in params change nothing', async () => {
    const read = recording();
    const tool = recording();
    const server = makeServer({ registry: fullRegistry(), readAuthorizer: read.authorizer, authorizer: tool.authorizer });
    const peer = new Peer(server, { connId: 'real', transport: 'ws' });
    await peer.initialize();
    const spoof = { connId: 'admin', transport: 'stdio', _meta: { connId: 'admin', transport: 'stdio' } };
    await peer.call(1, 'resources/list', spoof);
    await peer.call(2, 'tools/call', { name: 'tool', arguments: spoof, ...spoof });
    peer.send(note('notifications/initialized', spoof));
    expect(read.contexts).toStrictEqual([{ connId: 'real', transport: 'ws' }]);
    expect(tool.contexts).toStrictEqual([{ connId: 'real', transport: 'ws' }]);
    peer.close();
  });
});
