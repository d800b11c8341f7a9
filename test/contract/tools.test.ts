/**
 * Contract: tools/list (who sees what, what an entry carries) and
 * tools/call (params, authorizer outcomes, unknown tools, handler outcomes,
 * the deny shape), with sync, Promise and Observable callbacks.
 */
import { describe, expect, test, vi } from 'vitest';
import { of, Subject, throwError, timer } from 'rxjs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Registry, ToolError, type Authorizer, type Logger } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { Peer, deniedResult, denyText, makeServer, rpc, settle } from './helpers.js';

const call = (id: unknown, name: string, args?: unknown) =>
  rpc(id, 'tools/call', args === undefined ? { name } : { name, arguments: args });

function serverWith(tools: Record<string, (args: any, ctx: any) => unknown>, options: Parameters<typeof makeServer>[0] = {}) {
  const registry = new Registry();
  for (const [name, handler] of Object.entries(tools)) registry.registerTool({ name, handler });
  return makeServer({ registry, ...options });
}

async function listNames(server: ReturnType<typeof makeServer>): Promise<string[]> {
  const reply = (await server.handleMessage(rpc('l', 'tools/list'))) as any;
  return reply.result.tools.map((t: any) => t.name);
}

describe('tools/list', () => {
  test('with no authorizer every tool is listed, in registration order', async () => {
    const server = serverWith({ b: () => 1, a: () => 2, c: () => 3 });
    expect(await listNames(server)).toEqual(['b', 'a', 'c']);
  });

  test('a deny hides the tool; an ask is listed; the authorizer is asked with (name, {}, ctx)', async () => {
    const seen: unknown[][] = [];
    const authorizer: Authorizer = (name, args, ctx) => {
      seen.push([name, args, ctx]);
      if (name === 'hidden') return { deny: 'no' };
      if (name === 'asked') return { ask: 'sure?' };
      return 'allow';
    };
    const server = serverWith({ shown: () => 1, hidden: () => 2, asked: () => 3 }, { authorizer });
    expect(await listNames(server)).toEqual(['shown', 'asked']);
    expect(seen).toStrictEqual([
      ['shown', {}, { connId: 'default', transport: 'unknown' }],
      ['hidden', {}, { connId: 'default', transport: 'unknown' }],
      ['asked', {}, { connId: 'default', transport: 'unknown' }],
    ]);
  });

  test('a throwing authorizer hides the tool (fail closed) but not the others', async () => {
    const authorizer: Authorizer = (name) => {
      if (name === 'boom') throw new Error('authorizer bug');
      return 'allow';
    };
    const server = serverWith({ ok: () => 1, boom: () => 2 }, { authorizer });
    expect(await listNames(server)).toEqual(['ok']);
  });

  test('a rejecting or off-contract authorizer hides the tool too', async () => {
    const authorizer: Authorizer = async (name) => {
      if (name === 'rejects') throw new Error('x');
      if (name === 'weird') return 'yes' as any;
      return 'allow';
    };
    const server = serverWith({ ok: () => 1, rejects: () => 2, weird: () => 3 }, { authorizer });
    expect(await listNames(server)).toEqual(['ok']);
  });

  test('an entry carries name, title, description, inputSchema (untouched), outputSchema, annotations, icons; never the handler', async () => {
    const inputSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { path: { type: 'string', pattern: '^/', 'x-custom': [1, { deep: true }] } },
      required: ['path'],
      additionalProperties: false,
    };
    const snapshot = structuredClone(inputSchema);
    const outputSchema = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const annotations = { title: 'Read', readOnlyHint: true };
    const icons = [{ src: 'https://example.com/i.png', mimeType: 'image/png' }];
    const registry = new Registry();
    registry.registerTool({
      name: 'read',
      title: 'Read a file',
      description: 'Reads',
      inputSchema,
      outputSchema,
      annotations,
      icons,
      handler: () => 'x',
    });
    const reply = (await makeServer({ registry }).handleMessage(rpc(1, 'tools/list'))) as any;
    const [entry] = reply.result.tools;
    expect(entry).toStrictEqual({
      name: 'read',
      title: 'Read a file',
      description: 'Reads',
      inputSchema: snapshot,
      outputSchema,
      annotations,
      icons,
    });
    expect(entry.inputSchema).toBe(inputSchema);
    expect(inputSchema).toStrictEqual(snapshot);
    expect('handler' in entry).toBe(false);
    expect(JSON.stringify(reply)).not.toContain('handler');
  });

  test('the sensitive flag is ours and stays off the wire', async () => {
    const registry = new Registry();
    registry.registerTool({ name: 's', sensitive: true, handler: () => 'x' });
    const reply = (await makeServer({ registry, authorizer: () => 'allow' }).handleMessage(rpc(1, 'tools/list'))) as any;
    expect(Object.keys(reply.result.tools[0]).sort()).toEqual(['inputSchema', 'name']);
  });

  test('tools registered after start are listed, and the registry change is announced to subscribers', async () => {
    const server = serverWith({ a: () => 1 });
    const peer = new Peer(server);
    server.registry.registerTool({ name: 'late', handler: () => 2 });
    server.registry.registerTool({ name: 'later', handler: () => 3 });
    server.virtual.flush();
    expect(await listNames(server)).toEqual(['a', 'late', 'later']);
    // Coalesced: two registrations, one notification.
    expect(peer.notifications('notifications/tools/list_changed')).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    ]);
    peer.close();
  });
});

describe('tools/call: params', () => {
  test('no params is -32602 "tools/call requires params"', async () => {
    const reply = await serverWith({}).handleMessage(rpc(3, 'tools/call'));
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'tools/call requires params' } });
  });

  test('a missing or non-string name, or non-object arguments, is -32602', async () => {
    const server = serverWith({ t: () => 'x' });
    for (const params of [{}, { name: 5 }, { name: 't', arguments: [1] }, { name: 't', arguments: 'a' }]) {
      const reply = (await server.handleMessage(rpc(1, 'tools/call', params))) as any;
      expect(reply.error.code).toBe(-32602);
    }
  });

  test('the handler gets the arguments ({} when absent) and a context with connId, transport, requestId, meta and signal', async () => {
    const seen: any[] = [];
    const server = serverWith({ t: (args, ctx) => { seen.push({ args, ctx }); return 'x'; } }, { transport: 'stdio' });
    await server.handleMessage(call('r1', 't', { a: 1 }));
    await server.handleMessage(rpc('r2', 'tools/call', { name: 't', _meta: { progressToken: 7 } }), { connId: 'c9' });
    expect(seen[0].args).toStrictEqual({ a: 1 });
    expect(seen[0].ctx).toMatchObject({ connId: 'default', transport: 'stdio', requestId: 'r1', meta: undefined });
    expect(seen[0].ctx.signal).toBeInstanceOf(AbortSignal);
    expect(seen[1].args).toStrictEqual({});
    expect(seen[1].ctx).toMatchObject({ connId: 'c9', requestId: 'r2', meta: { progressToken: 7 } });
  });
});

describe('tools/call: handler outcomes', () => {
  const result = async (handler: (args: any, ctx: any) => unknown) =>
    ((await serverWith({ t: handler }).handleMessage(call(1, 't'))) as any).result;

  test('a string is one text item', async () => {
    expect(await result(() => 'hello')).toStrictEqual({ content: [{ type: 'text', text: 'hello' }] });
  });

  test('an array of content items is the content, as is', async () => {
    const content = [
      { type: 'text', text: 'a' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ];
    expect(await result(() => content)).toStrictEqual({ content });
  });

  test('a CallToolResult-shaped object is taken as is', async () => {
    const value = { content: [{ type: 'text', text: 'r' }], structuredContent: { n: 1 }, isError: false, _meta: { m: 1 } };
    expect(await result(() => value)).toStrictEqual(value);
  });

  test.each([
    ['a number', 42, '42'],
    ['an object', { a: 1, b: [true] }, '{"a":1,"b":[true]}'],
    ['an array of non-content values', [1, 'x'], '[1,"x"]'],
    ['null', null, 'null'],
    ['false', false, 'false'],
    ['an object whose content is not content items', { content: [1, 2] }, '{"content":[1,2]}'],
  ])('any other value (%s) is one text item holding its JSON', async (_what, value, text) => {
    expect(await result(() => value)).toStrictEqual({ content: [{ type: 'text', text }] });
  });

  test('a ToolError is an isError result with its message', async () => {
    const expected = { content: [{ type: 'text', text: 'file not found: /x' }], isError: true };
    expect(await result(() => { throw new ToolError('file not found: /x'); })).toStrictEqual(expected);
    expect(await result(async () => { throw new ToolError('file not found: /x'); })).toStrictEqual(expected);
    expect(await result(() => throwError(() => new ToolError('file not found: /x')))).toStrictEqual(expected);
  });

  test('any other throw is "Error: callback_crashed": the message is logged through the logger option, never returned', async () => {
    const secret = 'db password is hunter2';
    const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const registry = new Registry();
    registry.registerTool({ name: 'sync', handler: () => { throw new Error(secret); } });
    registry.registerTool({ name: 'async', handler: async () => { throw new TypeError(secret); } });
    registry.registerTool({ name: 'obs', handler: () => throwError(() => new RangeError(secret)) });
    const server = makeServer({ registry, logger });
    for (const name of ['sync', 'async', 'obs']) {
      const reply = await server.handleMessage(call(name, name));
      expect(reply).toStrictEqual({
        jsonrpc: '2.0',
        id: name,
        result: { content: [{ type: 'text', text: 'Error: callback_crashed' }], isError: true },
      });
      expect(JSON.stringify(reply)).not.toContain('hunter2');
    }
    const logged = (logger.error as any).mock.calls.map((args: unknown[]) => args[0]);
    expect(logged).toHaveLength(3);
    for (const entry of logged) expect((entry as any).err.message).toBe(secret);
  });

  test('Promise handlers', async () => {
    expect(await result(async () => 'later')).toStrictEqual({ content: [{ type: 'text', text: 'later' }] });
  });

  test('Observable handlers answer with their last value', async () => {
    expect(await result(() => of('first', 'last'))).toStrictEqual({ content: [{ type: 'text', text: 'last' }] });
  });

  test('an Observable handler answers when it completes, not before', async () => {
    const subject = new Subject<string>();
    const server = serverWith({ t: () => subject });
    let reply: any;
    void server.handleMessage(call(1, 't')).then((r) => (reply = r));
    subject.next('partial');
    await settle();
    expect(reply).toBeUndefined();
    subject.next('final');
    subject.complete();
    await settle();
    expect(reply.result).toStrictEqual({ content: [{ type: 'text', text: 'final' }] });
  });

  test('a scheduled Observable handler (timer on the server scheduler) answers once the clock moves', async () => {
    const server = serverWith({});
    server.registry.registerTool({ name: 't', handler: () => timer(50, server.virtual) });
    let reply: any;
    void server.handleMessage(call(1, 't')).then((r) => (reply = r));
    await settle();
    expect(reply).toBeUndefined();
    server.virtual.maxFrames = 50;
    server.virtual.flush();
    await settle();
    expect(reply.result).toStrictEqual({ content: [{ type: 'text', text: '0' }] });
  });
});

describe('tools/call: authorization', () => {
  test('the authorizer gets (name, args, ctx) with ctx exactly {connId, transport}', async () => {
    const seen: unknown[][] = [];
    const server = serverWith({ t: () => 'x' }, { authorizer: (...a) => { seen.push(a); return 'allow'; } });
    await server.handleMessage(call(1, 't', { k: 'v' }), { connId: 'cx' });
    expect(seen).toStrictEqual([['t', { k: 'v' }, { connId: 'cx', transport: 'unknown' }]]);
  });

  test('a deny is a tool RESULT with the exact JSON text, and the handler does not run', async () => {
    let ran = false;
    const server = serverWith({ t: () => { ran = true; return 'x'; } }, { authorizer: () => ({ deny: 'not on my watch' }) });
    const reply = (await server.handleMessage(call(7, 't'))) as any;
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 7, result: deniedResult('t', 'deny', 'not on my watch') });
    expect(reply.result.content[0].text).toBe(
      '{"error":"authorization_required","tool":"t","decision":"deny","detail":"not on my watch"}',
    );
    expect(ran).toBe(false);
  });

  test.each([
    ['throws', () => { throw new Error('x'); }],
    ['rejects', async () => { throw new Error('x'); }],
    ['errors (Observable)', () => throwError(() => new Error('x')) as any],
  ])('an authorizer that %s denies with authorizer_failed', async (_what, authorizer) => {
    let ran = false;
    const server = serverWith({ t: () => { ran = true; return 'x'; } }, { authorizer: authorizer as Authorizer });
    const reply = (await server.handleMessage(call(1, 't'))) as any;
    expect(reply.result).toStrictEqual(deniedResult('t', 'deny', 'authorizer_failed'));
    expect(ran).toBe(false);
  });

  test.each([
    ['a string other than "allow"', 'yes'],
    ['undefined', undefined],
    ['null', null],
    ['true', true],
    ['{allow: true}', { allow: true }],
    ['{deny: 5}', { deny: 5 }],
    ['{ask: null}', { ask: null }],
    ['both ask and deny', { ask: 'a', deny: 'd' }],
    ['an array', ['allow']],
  ])('an off-contract return (%s) denies with authorizer_contract_violation', async (_what, value) => {
    let ran = false;
    const server = serverWith({ t: () => { ran = true; return 'x'; } }, { authorizer: () => value as any });
    const reply = (await server.handleMessage(call(1, 't'))) as any;
    expect(reply.result).toStrictEqual(deniedResult('t', 'deny', 'authorizer_contract_violation'));
    expect(ran).toBe(false);
  });

  test('async authorizers: a resolved allow runs the tool, a resolved deny denies', async () => {
    const server = serverWith(
      { ok: () => 'ran', no: () => 'ran' },
      { authorizer: async (name) => (name === 'ok' ? 'allow' : { deny: 'async no' }) },
    );
    expect(((await server.handleMessage(call(1, 'ok'))) as any).result).toStrictEqual({ content: [{ type: 'text', text: 'ran' }] });
    expect(((await server.handleMessage(call(2, 'no'))) as any).result).toStrictEqual(deniedResult('no', 'deny', 'async no'));
  });

  test('a null authorizer allows (non-sensitive tools)', async () => {
    const server = serverWith({ t: () => 'ran' }, { authorizer: null });
    expect(((await server.handleMessage(call(1, 't'))) as any).result.content[0].text).toBe('ran');
  });
});

describe('tools/call: unknown tools', () => {
  test('-32601 "Tool not found: <name>"', async () => {
    expect(await serverWith({}).handleMessage(call(1, 'ghost'))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Tool not found: ghost' },
    });
  });

  test('unknownToolReply returning a string answers an isError result with that text; it is given the name', async () => {
    const names: string[] = [];
    const server = serverWith({}, { unknownToolReply: (name) => { names.push(name); return `session for ${name} stopped`; } });
    expect(await server.handleMessage(call(1, 'gone.tool'))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'session for gone.tool stopped' }], isError: true },
    });
    expect(names).toEqual(['gone.tool']);
  });

  test('unknownToolReply returning null (or undefined) keeps the -32601', async () => {
    for (const value of [null, undefined]) {
      const server = serverWith({}, { unknownToolReply: () => value });
      expect(await server.handleMessage(call(1, 'ghost'))).toStrictEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: 'Tool not found: ghost' },
      });
    }
  });

  test('a throwing unknownToolReply keeps the -32601 (logged), and the connection keeps working', async () => {
    const logger: Logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const server = serverWith({ t: () => 'ran' }, { logger, unknownToolReply: () => { throw new Error('reply bug'); } });
    expect(await server.handleMessage(call(1, 'ghost'))).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32601, message: 'Tool not found: ghost' },
    });
    expect(((await server.request(call(2, 'ghost')).reply) as any)?.error).toMatchObject({ code: -32601 });
    const peer = new Peer(server);
    expect((await peer.call(3, 'tools/call', { name: 'ghost' })).error.code).toBe(-32601);
    expect((await peer.call(4, 'tools/call', { name: 't' })).result.content[0].text).toBe('ran');
    expect((logger.error as any).mock.calls[0][0].err.message).toBe('reply bug');
    peer.close();
  });

  test('unknownToolReply returning a non-string keeps the -32601', async () => {
    const server = serverWith({}, { unknownToolReply: () => 42 as any });
    expect(((await server.handleMessage(call(1, 'ghost'))) as any).error.code).toBe(-32601);
  });

  test('unknownToolReply is not consulted for a registered tool', async () => {
    const reply = vi.fn(() => 'nope');
    const server = serverWith({ t: () => 'ran' }, { unknownToolReply: reply });
    expect(((await server.handleMessage(call(1, 't'))) as any).result.content[0].text).toBe('ran');
    expect(reply).not.toHaveBeenCalled();
  });

  test('the authorizer runs before the unknown-tool check: a denied unknown name gets the deny', async () => {
    const server = serverWith({}, { authorizer: () => ({ deny: 'no' }) });
    expect(((await server.handleMessage(call(1, 'ghost'))) as any).result).toStrictEqual(deniedResult('ghost', 'deny', 'no'));
  });
});

describe('through the official SDK client', () => {
  test('listTools and callTool (text, denied, ToolError, unknown tool)', async () => {
    const registry = new Registry();
    registry.registerTool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      handler: (a) => String(a.text),
    });
    registry.registerTool({ name: 'forbidden', handler: () => 'never' });
    registry.registerTool({ name: 'fails', handler: () => { throw new ToolError('nope'); } });
    const server = makeServer({ registry, authorizer: (n) => (n === 'forbidden' ? { deny: 'policy' } : 'allow') });
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new MemoryClientTransport(server));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'fails']);
    expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    const denied = await client.callTool({ name: 'forbidden' });
    expect(denied).toEqual({ content: [{ type: 'text', text: denyText('forbidden', 'deny', 'policy') }], isError: true });
    expect(await client.callTool({ name: 'fails' })).toEqual({ content: [{ type: 'text', text: 'nope' }], isError: true });
    await expect(client.callTool({ name: 'ghost' })).rejects.toMatchObject({ code: -32601 });
    await client.close();
  });
});
