/**
 * The extension API end to end on direct calls, both eras: declared in
 * initialize and server/discover, its method answered only for a client that
 * declared it (-32021 naming it otherwise), its handler told the era and the
 * declaration, its ExtensionError sent as is, a read-authorizer deny, a
 * result member on a built-in method, and the configurations refused.
 */
import { describe, expect, test } from 'vitest';
import { createServer, denyAll, Registry, type Extension } from '../../lib/index.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';
import { NOTES_ID, notesExtension } from './notes-extension.js';

const declaring = { extensions: { [NOTES_ID]: {} } };
const count = (id: unknown, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'notes/count', params });

function server(extensions: Extension[] = [notesExtension()], more: Parameters<typeof createServer>[0] = {}) {
  return createServer({ registry: new Registry().registerTool({ name: 'echo', handler: () => 'ok' }), extensions, ...more });
}

describe('declaration', () => {
  test('initialize and server/discover declare the extension under capabilities.extensions with its settings', async () => {
    const s = server();
    const init = (await s.handleMessage(legacyInitialize(1), { connId: 'c1' })) as { result: { capabilities: Record<string, unknown> } };
    expect(init.result.capabilities.extensions).toEqual({ [NOTES_ID]: { folders: true } });
    expect(init.result.capabilities.tools).toEqual({ listChanged: true });
    const discover = (await s.handleMessage(modernRpc(2, 'server/discover'))) as { result: { capabilities: Record<string, unknown> } };
    expect(discover.result.capabilities.extensions).toEqual({ [NOTES_ID]: { folders: true } });
  });

  test('a server without extensions declares none', async () => {
    const discover = (await server([]).handleMessage(modernRpc(1, 'server/discover'))) as { result: { capabilities: Record<string, unknown> } };
    expect(discover.result.capabilities).not.toHaveProperty('extensions');
  });
});

describe('an extension method, modern era', () => {
  test('a client that declared the extension gets the result, its handler told the era and the declaration', async () => {
    const reply = (await server().handleMessage(modernRpc(1, 'notes/count', {}, { capabilities: declaring }))) as { result: Record<string, unknown> };
    expect(reply.result).toMatchObject({ resultType: 'complete', count: 2, era: 'modern', declared: true, extensionId: NOTES_ID });
  });

  test('a client that did not declare it gets -32021 naming the extension', async () => {
    const reply = await server().handleMessage(modernRpc(1, 'notes/count'));
    expect(reply).toMatchObject({
      id: 1,
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [NOTES_ID]: {} } } } },
    });
    expect((reply as { error: { message: string } }).error.message).toContain(NOTES_ID);
  });

  test("the handler's ExtensionError is the reply's error", async () => {
    const reply = await server().handleMessage(modernRpc(1, 'notes/count', { folder: 7 }, { capabilities: declaring }));
    expect(reply).toMatchObject({ error: { code: -32602, message: 'folder must be a string', data: { folder: 7 } } });
  });

  test('the read authorizer gates it like any read: a deny is -31090 on this wire', async () => {
    const reply = await server(undefined, { readAuthorizer: denyAll() }).handleMessage(modernRpc(1, 'notes/count', {}, { capabilities: declaring }));
    expect(reply).toMatchObject({ error: { code: -31090, data: { error: 'authorization_required', method: 'notes/count' } } });
  });

  test('a method of no extension is still -32601', async () => {
    expect(await server().handleMessage(modernRpc(1, 'notes/delete'))).toMatchObject({ error: { code: -32601 } });
  });
});

describe('an extension method, legacy era', () => {
  test('declared at initialize: answered; not declared: -32021', async () => {
    const s = server();
    await s.handleMessage(legacyInitialize('i1', declaring), { connId: 'yes' });
    await s.handleMessage(legacyInitialize('i2', {}), { connId: 'no' });
    expect(await s.handleMessage(count(1), { connId: 'yes' })).toMatchObject({ result: { count: 2, era: 'legacy', declared: true } });
    expect(await s.handleMessage(count(2), { connId: 'no' })).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [NOTES_ID]: {} } } } },
    });
  });

  test('the read authorizer deny is -32090 on this wire', async () => {
    const s = server(undefined, { readAuthorizer: denyAll() });
    await s.handleMessage(legacyInitialize('i', declaring), { connId: 'c' });
    expect(await s.handleMessage(count(1), { connId: 'c' })).toMatchObject({ error: { code: -32090 } });
  });
});

describe('result members', () => {
  test('tools/list gains the member only for a client that declared the extension, and keeps its own', async () => {
    const s = server();
    const declared = (await s.handleMessage(modernRpc(1, 'tools/list', {}, { capabilities: declaring }))) as { result: Record<string, unknown> };
    expect(declared.result).toMatchObject({ notesFolders: ['inbox'], tools: [{ name: 'echo' }], resultType: 'complete' });
    const plain = (await s.handleMessage(modernRpc(2, 'tools/list'))) as { result: Record<string, unknown> };
    expect(plain.result).not.toHaveProperty('notesFolders');
  });
});

describe('what createServer refuses', () => {
  const refusal = (extensions: unknown) => () => createServer({ extensions: extensions as Extension[] });
  test('an id without a vendor prefix, an id given twice, a built-in method, a method claimed twice', () => {
    expect(refusal([{ id: 'notes' }])).toThrow(/vendor prefix/);
    expect(refusal([{ id: 'com.example/a' }, { id: 'com.example/a' }])).toThrow(/given twice/);
    expect(refusal([{ id: 'com.example/a', methods: { 'tools/call': { handler: () => ({}) } } }])).toThrow(/built-in method/);
    expect(
      refusal([
        { id: 'com.example/a', methods: { 'x/y': { handler: () => ({}) } } },
        { id: 'com.example/b', methods: { 'x/y': { handler: () => ({}) } } },
      ]),
    ).toThrow(/claimed by both/);
    expect(refusal([{ id: 'com.example/a', methods: { 'x/y': {} } }])).toThrow(/handler/);
  });
});

describe('the spine around an extension method', () => {
  test('the middleware sees it as an admitted call, and events$ reports call_completed (error code included)', async () => {
    const seen: string[] = [];
    const s = server(undefined, {
      middleware: [() => (call) => (reply$) => {
        seen.push(`${call.method} ${JSON.stringify(call.arguments)}`);
        return reply$;
      }],
    });
    const events: Array<{ type: string; method?: string; outcome?: string; errorCode?: number }> = [];
    const subscription = s.events$.subscribe((event) => events.push(event as (typeof events)[number]));
    expect(await s.handleMessage(modernRpc(1, 'notes/count', { folder: 'inbox' }, { capabilities: declaring }))).toMatchObject({ result: { count: 2 } });
    await s.handleMessage(modernRpc(2, 'notes/count'));
    subscription.unsubscribe();
    expect(seen).toEqual(['notes/count {"folder":"inbox"}']);
    const completed = events.filter((e) => e.type === 'call_completed' && e.method === 'notes/count');
    expect(completed.map((e) => [e.outcome, e.errorCode])).toEqual([
      ['ok', undefined],
      ['error', -32021],
    ]);
  });
});
