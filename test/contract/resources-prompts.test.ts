/**
 * Contract: resources (list, read, templates, subscribe/unsubscribe,
 * resources/updated to subscribers only), prompts (list, get, its -32602s)
 * and completion/complete (at most 100 values, with total and hasMore).
 */
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { Peer, makeServer, rpc, settle } from './helpers.js';

function registry() {
  const calls: any[] = [];
  const r = new Registry();
  r.registerResource({
    uri: 'mem://readme',
    name: 'readme',
    title: 'Read me',
    description: 'The readme',
    mimeType: 'text/markdown',
    size: 5,
    read: (uri, ctx) => { calls.push({ uri, ctx }); return '# hi'; },
  });
  r.registerResource({ uri: 'mem://users/7/profile', name: 'fixed-wins', read: () => 'fixed' });
  r.registerResourceTemplate({
    uriTemplate: 'mem://users/{id}/profile',
    name: 'profile',
    mimeType: 'application/json',
    read: (uri, variables) => { calls.push({ uri, variables }); return JSON.stringify(variables); },
    complete: { id: (value) => ['1', '2', '10', '11'].filter((v) => v.startsWith(value)) },
  });
  r.registerResourceTemplate({ uriTemplate: 'file:///{+path}', name: 'files', read: (_uri, v) => `file ${v.path}` });
  r.registerPrompt({
    name: 'greet',
    description: 'Greets',
    arguments: [{ name: 'who', required: true }, { name: 'tone' }],
    get: (args) => `Hello ${args.who}${args.tone ? ` (${args.tone})` : ''}`,
    complete: {
      who: (value, ctx) => [`${value}-a`, `${value}-b`, `tone=${ctx.arguments.tone ?? ''}`],
      tone: () => Array.from({ length: 150 }, (_, i) => `t${i}`),
    },
  });
  r.registerPrompt({
    name: 'chat',
    get: () => ({
      description: 'dynamic',
      messages: [
        { role: 'user', content: { type: 'text', text: 'q' } },
        { role: 'assistant', content: { type: 'text', text: 'a' } },
      ],
    }),
  });
  return { registry: r, calls };
}

describe('resources', () => {
  test('resources/list lists every resource with its description fields', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'resources/list'))) as any;
    expect(reply.result).toStrictEqual({
      resources: [
        { uri: 'mem://readme', name: 'readme', title: 'Read me', description: 'The readme', mimeType: 'text/markdown', size: 5 },
        { uri: 'mem://users/7/profile', name: 'fixed-wins' },
      ],
    });
  });

  test('resources/read of a fixed resource', async () => {
    const { registry: r, calls } = registry();
    const reply = await makeServer({ registry: r }).handleMessage(rpc(1, 'resources/read', { uri: 'mem://readme' }));
    expect(reply).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { contents: [{ uri: 'mem://readme', mimeType: 'text/markdown', text: '# hi' }] },
    });
    expect(calls[0].uri).toBe('mem://readme');
    expect(calls[0].ctx).toMatchObject({ connId: 'default', transport: 'unknown', requestId: 1 });
  });

  test('resources/read of an unknown URI is -32602 "Resource not found: <uri>"', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'resources/read', { uri: 'mem://nope' }))) as any;
    expect(reply.error).toMatchObject({ code: -32602, message: 'Resource not found: mem://nope' });
  });

  test('resources/read without a string uri is -32602', async () => {
    for (const params of [undefined, {}, { uri: 5 }]) {
      const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'resources/read', params))) as any;
      expect(reply.error.code).toBe(-32602);
    }
  });

  test('a template read hands the reader its variables', async () => {
    const { registry: r, calls } = registry();
    const server = makeServer({ registry: r });
    const reply = (await server.handleMessage(rpc(1, 'resources/read', { uri: 'mem://users/42/profile' }))) as any;
    expect(reply.result).toStrictEqual({
      contents: [{ uri: 'mem://users/42/profile', mimeType: 'application/json', text: '{"id":"42"}' }],
    });
    expect(calls).toStrictEqual([{ uri: 'mem://users/42/profile', variables: { id: '42' } }]);
    const deep = (await server.handleMessage(rpc(2, 'resources/read', { uri: 'file:///etc/hosts' }))) as any;
    expect(deep.result.contents[0].text).toBe('file etc/hosts');
  });

  test('a fixed resource wins over a template that also matches', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'resources/read', { uri: 'mem://users/7/profile' }))) as any;
    expect(reply.result.contents[0].text).toBe('fixed');
  });

  test('resources/templates/list lists the templates', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'resources/templates/list'))) as any;
    expect(reply.result).toStrictEqual({
      resourceTemplates: [
        { uriTemplate: 'mem://users/{id}/profile', name: 'profile', mimeType: 'application/json' },
        { uriTemplate: 'file:///{+path}', name: 'files' },
      ],
    });
  });

  test('resources/subscribe and unsubscribe answer {} exactly', async () => {
    const peer = new Peer(makeServer({ registry: registry().registry }));
    expect(await peer.call(1, 'resources/subscribe', { uri: 'mem://readme' })).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await peer.call(2, 'resources/unsubscribe', { uri: 'mem://readme' })).toStrictEqual({ jsonrpc: '2.0', id: 2, result: {} });
    peer.close();
  });

  test('resources/updated goes only to the connections that subscribed that URI', async () => {
    const server = makeServer({ registry: registry().registry });
    const a = new Peer(server, { connId: 'A' });
    const b = new Peer(server, { connId: 'B' });
    const idle = new Peer(server, { connId: 'C' });
    await a.call(1, 'resources/subscribe', { uri: 'mem://readme' });
    await b.call(1, 'resources/subscribe', { uri: 'mem://users/42/profile' });

    server.resourceUpdated('mem://readme');
    expect(a.notifications()).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://readme' } },
    ]);
    expect(b.notifications()).toEqual([]);
    expect(idle.notifications()).toEqual([]);

    server.resourceUpdated('mem://users/42/profile');
    expect(b.notifications('notifications/resources/updated')).toHaveLength(1);
    expect(a.notifications()).toHaveLength(1);

    await a.call(2, 'resources/unsubscribe', { uri: 'mem://readme' });
    server.resourceUpdated('mem://readme');
    expect(a.notifications()).toHaveLength(1);
    for (const p of [a, b, idle]) p.close();
  });

  test('a subscription ends with its connection: a new connection under the same id starts with none', async () => {
    const server = makeServer({ registry: registry().registry });
    const first = new Peer(server, { connId: 'same' });
    await first.call(1, 'resources/subscribe', { uri: 'mem://readme' });
    first.close();
    const second = new Peer(server, { connId: 'same' });
    server.resourceUpdated('mem://readme');
    expect(second.notifications()).toEqual([]);
    second.close();
  });

  test('other notifications go to every subscribed connection', async () => {
    const server = makeServer();
    const a = new Peer(server);
    const b = new Peer(server);
    server.notify('notifications/custom', { n: 1 });
    for (const p of [a, b]) expect(p.notifications()).toStrictEqual([{ jsonrpc: '2.0', method: 'notifications/custom', params: { n: 1 } }]);
    a.close();
    b.close();
  });

  test('registry changes announce resources and prompts list_changed', async () => {
    const server = makeServer();
    const peer = new Peer(server);
    server.registry.registerResource({ uri: 'mem://n', name: 'n', read: () => 'n' });
    server.registry.registerResourceTemplate({ uriTemplate: 'mem://n/{x}', name: 'nx', read: () => 'n' });
    server.registry.registerPrompt({ name: 'np', get: () => 'n' });
    server.virtual.flush();
    expect(peer.notifications().map((m) => m.method).sort()).toEqual([
      'notifications/prompts/list_changed',
      'notifications/resources/list_changed',
    ]);
    peer.close();
  });
});

describe('prompts', () => {
  test('prompts/list lists the prompts with their arguments', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'prompts/list'))) as any;
    expect(reply.result).toStrictEqual({
      prompts: [
        { name: 'greet', description: 'Greets', arguments: [{ name: 'who', required: true }, { name: 'tone' }] },
        { name: 'chat' },
      ],
    });
  });

  test('prompts/get renders with the arguments', async () => {
    const server = makeServer({ registry: registry().registry });
    const reply = await server.handleMessage(rpc(1, 'prompts/get', { name: 'greet', arguments: { who: 'Ada', tone: 'warm' } }));
    expect(reply).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { description: 'Greets', messages: [{ role: 'user', content: { type: 'text', text: 'Hello Ada (warm)' } }] },
    });
    const chat = (await server.handleMessage(rpc(2, 'prompts/get', { name: 'chat' }))) as any;
    expect(chat.result).toStrictEqual({
      description: 'dynamic',
      messages: [
        { role: 'user', content: { type: 'text', text: 'q' } },
        { role: 'assistant', content: { type: 'text', text: 'a' } },
      ],
    });
  });

  test('an unknown prompt is -32602', async () => {
    const reply = (await makeServer({ registry: registry().registry }).handleMessage(rpc(1, 'prompts/get', { name: 'nope' }))) as any;
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toContain('nope');
  });

  test('a missing required argument is -32602, and the prompt is not rendered', async () => {
    let rendered = 0;
    const r = new Registry().registerPrompt({
      name: 'needs',
      arguments: [{ name: 'a', required: true }, { name: 'b', required: false }],
      get: () => { rendered += 1; return 'x'; },
    });
    const server = makeServer({ registry: r });
    for (const args of [undefined, {}, { b: 'only b' }]) {
      const params = args === undefined ? { name: 'needs' } : { name: 'needs', arguments: args };
      const reply = (await server.handleMessage(rpc(1, 'prompts/get', params))) as any;
      expect(reply.error.code).toBe(-32602);
      expect(reply.error.message).toContain('a');
    }
    expect(rendered).toBe(0);
    expect(((await server.handleMessage(rpc(2, 'prompts/get', { name: 'needs', arguments: { a: '1' } }))) as any).result).toBeDefined();
  });

  test('a missing name or non-string argument values are -32602', async () => {
    const server = makeServer({ registry: registry().registry });
    for (const params of [{}, { name: 3 }, { name: 'greet', arguments: { who: 5 } }, { name: 'greet', arguments: ['x'] }]) {
      expect(((await server.handleMessage(rpc(1, 'prompts/get', params))) as any).error.code).toBe(-32602);
    }
  });
});

describe('completion/complete', () => {
  const complete = (server: ReturnType<typeof makeServer>, ref: unknown, name: string, value: string, context?: unknown) =>
    server.handleMessage(rpc(1, 'completion/complete', { ref, argument: { name, value }, ...(context ? { context } : {}) }));

  test('values are capped at 100, with total and hasMore saying what was cut', async () => {
    const reply = (await complete(makeServer({ registry: registry().registry }), { type: 'ref/prompt', name: 'greet' }, 'tone', '')) as any;
    expect(reply.result.completion.values).toHaveLength(100);
    expect(reply.result.completion.values[99]).toBe('t99');
    expect(reply.result.completion.total).toBe(150);
    expect(reply.result.completion.hasMore).toBe(true);
  });

  test('under the cap: every value, hasMore false; the completer sees the value and the chosen arguments', async () => {
    const reply = await complete(makeServer({ registry: registry().registry }), { type: 'ref/prompt', name: 'greet' }, 'who', 'Ad', {
      arguments: { tone: 'dry' },
    });
    expect(reply).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { completion: { values: ['Ad-a', 'Ad-b', 'tone=dry'], total: 3, hasMore: false } },
    });
  });

  test('exactly 100 values is not "more"', async () => {
    const r = new Registry().registerPrompt({ name: 'p', get: () => 'x', complete: { a: () => Array.from({ length: 100 }, (_, i) => `${i}`) } });
    const reply = (await complete(makeServer({ registry: r }), { type: 'ref/prompt', name: 'p' }, 'a', '')) as any;
    expect(reply.result.completion).toMatchObject({ total: 100, hasMore: false });
    expect(reply.result.completion.values).toHaveLength(100);
  });

  test('a resource template variable completes through ref/resource', async () => {
    const reply = (await complete(makeServer({ registry: registry().registry }), { type: 'ref/resource', uri: 'mem://users/{id}/profile' }, 'id', '1')) as any;
    expect(reply.result.completion.values).toEqual(['1', '10', '11']);
  });

  test('an argument with no completer completes to nothing', async () => {
    const reply = (await complete(makeServer({ registry: registry().registry }), { type: 'ref/prompt', name: 'chat' }, 'x', '')) as any;
    expect(reply.result.completion.values).toEqual([]);
  });

  test('a bad ref or argument is -32602', async () => {
    const server = makeServer({ registry: registry().registry });
    expect(((await complete(server, { type: 'ref/other' }, 'a', '')) as any).error.code).toBe(-32602);
    expect(((await server.handleMessage(rpc(1, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' } }))) as any).error.code).toBe(-32602);
  });
});

describe('a crashing read callback', () => {
  const crashed = (id: unknown, method: string) => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32603, message: 'MCP callback failed', data: { error: 'callback_crashed', method } },
  });

  test('is -32603 "MCP callback failed" with data {error: "callback_crashed", method}, and its message stays private', async () => {
    const secret = 'connection string postgres://admin:pw@db';
    const r = new Registry();
    r.registerResource({ uri: 'mem://boom', name: 'boom', read: () => { throw new Error(secret); } });
    r.registerResourceTemplate({ uriTemplate: 'mem://t/{x}', name: 't', read: async () => { throw new Error(secret); } });
    r.registerPrompt({ name: 'boom', get: () => { throw new Error(secret); }, complete: { a: () => { throw new Error(secret); } } });
    const server = makeServer({ registry: r });
    const replies = [
      [await server.handleMessage(rpc(1, 'resources/read', { uri: 'mem://boom' })), crashed(1, 'resources/read')],
      [await server.handleMessage(rpc(2, 'resources/read', { uri: 'mem://t/1' })), crashed(2, 'resources/read')],
      [await server.handleMessage(rpc(3, 'prompts/get', { name: 'boom' })), crashed(3, 'prompts/get')],
      [
        await server.handleMessage(rpc(4, 'completion/complete', { ref: { type: 'ref/prompt', name: 'boom' }, argument: { name: 'a', value: '' } })),
        crashed(4, 'completion/complete'),
      ],
    ];
    for (const [reply, expected] of replies) {
      expect(reply).toStrictEqual(expected);
      expect(JSON.stringify(reply)).not.toContain('postgres');
    }
    expect(server.stats().inFlight).toBe(0);
  });

  test('a reader answering an unsupported value is a crash too', async () => {
    const r = new Registry().registerResource({ uri: 'mem://odd', name: 'odd', read: () => 42 as any });
    expect(await makeServer({ registry: r }).handleMessage(rpc(1, 'resources/read', { uri: 'mem://odd' }))).toStrictEqual(
      crashed(1, 'resources/read'),
    );
  });
});

describe('through the official SDK client', () => {
  test('readResource, listResourceTemplates, getPrompt, complete and a resource subscription', async () => {
    const server = makeServer({ registry: registry().registry });
    const client = new Client({ name: 'sdk', version: '1' });
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri); });
    await client.connect(new MemoryClientTransport(server));
    expect(await client.readResource({ uri: 'mem://readme' })).toEqual({
      contents: [{ uri: 'mem://readme', mimeType: 'text/markdown', text: '# hi' }],
    });
    expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(2);
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'Bo' } })).messages[0]!.content).toEqual({ type: 'text', text: 'Hello Bo' });
    expect((await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'tone', value: '' } })).completion).toMatchObject({
      total: 150,
      hasMore: true,
    });
    await expect(client.readResource({ uri: 'mem://missing' })).rejects.toMatchObject({ code: -32602 });
    await client.subscribeResource({ uri: 'mem://readme' });
    server.resourceUpdated('mem://readme');
    server.resourceUpdated('mem://other');
    await settle();
    expect(updates).toEqual(['mem://readme']);
    await client.close();
  });
});
