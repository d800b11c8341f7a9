/**
 * Hostile callers of MCP Apps: a view is a resource and a view's call is a
 * tool call, so nothing about Apps opens a door the read and tool authorizers
 * keep shut. A principal cannot read another principal's view (per-principal
 * scoping in the read authorizer, and in a view answered per caller), a view
 * whose scopes the caller lacks is neither listed nor read, the read
 * authorizer gates every view read on both eras, and an app-only tool is
 * still refused by the tool authorizer and still needs its approval.
 */
import { describe, expect, test } from 'vitest';
import { allowlist, appsExtension, createServer, defineAppTool, denyAll, makePrincipal, Registry, UI_MIME_TYPE, type Authorizer, type ServerOptions } from '../../lib/index.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';

type Reply = { result: Record<string, any>; error?: undefined } | { error: { code: number; message: string; data?: any }; result?: undefined };

const person = (subject: string, scopes: string[] = []) => makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject, clientId: 'host', scopes });
const ada = person('ada');
const bob = person('bob');

/** Per-principal scoping: a board view is readable by its owner only. */
const ownBoardsOnly: Authorizer = (_name, args, ctx) => {
  const uri = args.uri;
  if (typeof uri !== 'string' || !uri.startsWith('ui://boards/')) return 'allow';
  return uri === `ui://boards/${ctx.principal?.subject ?? ''}` ? 'allow' : { deny: 'not your board' };
};

function boards(): Registry {
  const registry = new Registry();
  for (const owner of ['ada', 'bob']) {
    registry.registerUiResource({ uri: `ui://boards/${owner}`, name: `${owner}'s board`, html: `<p>${owner}'s private notes</p>` });
  }
  return registry
    .registerUiResource({ uri: 'ui://payroll/view', name: 'payroll', requiredScopes: ['payroll'], html: '<p>salaries</p>' })
    .registerApp({ uri: 'ui://notes/board', name: 'board', html: '<p>board</p>' }, [
      defineAppTool({ name: 'delete_note', ui: { visibility: ['app'] }, annotations: { destructiveHint: true }, handler: () => 'deleted' }),
      defineAppTool({ name: 'wipe_notes', ui: { visibility: ['app'] }, handler: () => 'wiped' }),
    ]);
}

function server(more: ServerOptions = {}) {
  return createServer({
    registry: boards(),
    extensions: [appsExtension()],
    readAuthorizer: ownBoardsOnly,
    authorizer: allowlist([], { ask: { delete_note: 'Delete the note?' } }),
    ...more,
  });
}

const call = async (s: ReturnType<typeof server>, message: unknown, options: Parameters<ReturnType<typeof server>['handleMessage']>[1] = {}) =>
  (await s.handleMessage(message, options)) as Reply;
const read = (uri: string) => modernRpc(1, 'resources/read', { uri });

describe('a view of another principal', () => {
  test('bob cannot read ada’s board, by its URI or an encoded twin; each reads their own', async () => {
    const s = server();
    expect(await call(s, read('ui://boards/ada'), { principal: bob })).toMatchObject({ error: { code: -31090 } });
    expect(await call(s, read('ui://boards/%61da'), { principal: bob })).toMatchObject({ error: {} });
    expect(await call(s, read('ui://boards/ada'), { principal: undefined })).toMatchObject({ error: { code: -31090 } });
    const own = await call(s, read('ui://boards/bob'), { principal: bob });
    expect(own.result!.contents).toEqual([{ uri: 'ui://boards/bob', mimeType: UI_MIME_TYPE, text: "<p>bob's private notes</p>" }]);
    expect((await call(s, read('ui://boards/ada'), { principal: ada })).result!.contents[0].text).toBe("<p>ada's private notes</p>");
  });

  test('a view answered per caller shows each principal only their own items', async () => {
    const registry = new Registry().registerUiResource({
      uri: 'ui://inbox/view',
      name: 'inbox',
      html: (ctx) => `<p>inbox of ${ctx.principal?.subject ?? 'nobody'}</p>`,
    });
    const s = createServer({ registry, extensions: [appsExtension()] });
    expect((await call(s, read('ui://inbox/view'), { principal: bob })).result!.contents[0].text).toBe('<p>inbox of bob</p>');
    expect((await call(s, read('ui://inbox/view'), { principal: ada })).result!.contents[0].text).toBe('<p>inbox of ada</p>');
  });

  test('a view whose scopes the caller lacks is not listed and not read', async () => {
    const s = server();
    const listed = (await call(s, modernRpc(1, 'resources/list'), { principal: bob })).result!.resources as Array<{ uri: string }>;
    expect(listed.map((entry) => entry.uri)).not.toContain('ui://payroll/view');
    expect(await call(s, read('ui://payroll/view'), { principal: bob })).toMatchObject({ error: { code: -31090 } });
    expect((await call(s, read('ui://payroll/view'), { principal: person('carol', ['payroll']) })).result!.contents[0].text).toBe('<p>salaries</p>');
  });
});

describe('only behind the authorizers', () => {
  test('the read authorizer gates every view read, on both eras', async () => {
    const s = server({ readAuthorizer: denyAll('views are closed') });
    expect(await call(s, read('ui://notes/board'))).toMatchObject({ error: { code: -31090 } });
    await s.handleMessage(legacyInitialize('i'), { connId: 'c' });
    const legacy = await call(s, { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'ui://notes/board' } }, { connId: 'c' });
    expect(legacy).toMatchObject({ error: { code: -32090 } });
  });

  test('an app-only tool is refused by the tool authorizer, and a destructive one still waits for approval', async () => {
    const s = server();
    const wiped = await call(s, modernRpc(1, 'tools/call', { name: 'wipe_notes', arguments: {} }), { principal: ada });
    expect(wiped.error ?? wiped.result!.isError).toBeTruthy();
    expect(JSON.stringify(wiped)).not.toContain('wiped');
    // Declared elicitation, so the approval is asked for: the answer is a question, not the tool's result.
    const asked = await call(
      s,
      modernRpc(2, 'tools/call', { name: 'delete_note', arguments: {} }, { capabilities: { elicitation: {}, extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [UI_MIME_TYPE] } } } }),
      { principal: ada },
    );
    expect(asked.result?.resultType).toBe('input_required');
    expect(JSON.stringify(asked)).not.toContain('deleted');
  });
});
