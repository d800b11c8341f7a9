/**
 * The Skills extension on direct calls of both eras: declared with
 * directoryRead, skills/list (paged, with the modern cache hints) and
 * skills/get answered without a client declaration, files read through
 * resources/read, directory reads (-32602 for a file, a traversal or
 * anything not a directory), and authorization like every read: the read
 * authorizer, and per-skill requiredScopes that hide a skill from a
 * principal without them.
 */
import { describe, expect, test } from 'vitest';
import { createServer, denyAll, makePrincipal, Registry, SkillCatalog, skillsExtension, type SkillsOptions } from '../../lib/index.js';
import { legacyInitialize, modernRpc } from '../era/modern-helpers.js';

const skillMd = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill\nlicense: MIT\n---\n# ${name}\n`;
const rpc = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

function catalog() {
  return SkillCatalog.of([
    { path: 'pdf', files: { 'SKILL.md': skillMd('pdf'), 'templates/a.md': '# A\n', 'templates/regional/eu.md': '# EU\n' } },
    { path: 'payroll', files: { 'SKILL.md': skillMd('payroll') }, requiredScopes: ['hr'] },
  ]);
}

function server(options: SkillsOptions = {}, more: Parameters<typeof createServer>[0] = {}) {
  return createServer({ registry: new Registry(), extensions: [skillsExtension(catalog(), options)], ...more });
}

type Reply = { result: Record<string, unknown>; error?: undefined } | { error: { code: number; message: string; data?: unknown }; result?: undefined };
const call = async (s: ReturnType<typeof server>, message: unknown, options: Parameters<ReturnType<typeof server>['handleMessage']>[1] = {}) =>
  (await s.handleMessage(message, options)) as Reply;

describe('declaration and listing', () => {
  test('declared with directoryRead, beside the resources capability it needs', async () => {
    const discover = await call(server(), modernRpc(1, 'server/discover'));
    expect(discover.result!.capabilities).toMatchObject({ resources: {}, extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } } });
    const without = await call(server({ directoryRead: false }), modernRpc(1, 'server/discover'));
    expect((without.result!.capabilities as Record<string, unknown>).extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
  });

  test('skills/list on the modern wire: entries, resultType and the cache hints, no client declaration needed', async () => {
    const reply = await call(server(), modernRpc(1, 'skills/list'));
    expect(reply.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    const skills = reply.result!.skills as Array<{ uri: string; frontmatter: unknown; resources: unknown[] }>;
    expect(skills.map((s) => s.uri)).toEqual(['skill://payroll/SKILL.md', 'skill://pdf/SKILL.md']);
    expect(skills[1]!.frontmatter).toEqual({ name: 'pdf', description: 'The pdf skill', license: 'MIT' });
    expect(skills[1]!.resources).toHaveLength(3);
  });

  test('skills/list on the legacy wire has no cache hints', async () => {
    const s = server();
    await s.handleMessage(legacyInitialize('i'), { connId: 'c' });
    const reply = await call(s, rpc(1, 'skills/list'), { connId: 'c' });
    expect(reply.result!).not.toHaveProperty('ttlMs');
    expect((reply.result!.skills as unknown[]).length).toBe(2);
  });

  test('pages of one: each entry whole, the cursor round-trips, a forged cursor is -32602', async () => {
    const s = server({ pageSize: 1 });
    const first = await call(s, modernRpc(1, 'skills/list'));
    expect((first.result!.skills as unknown[]).length).toBe(1);
    const second = await call(s, modernRpc(2, 'skills/list', { cursor: first.result!.nextCursor }));
    expect((second.result!.skills as Array<{ uri: string }>)[0]!.uri).toBe('skill://pdf/SKILL.md');
    expect(second.result!).not.toHaveProperty('nextCursor');
    expect(await call(s, modernRpc(3, 'skills/list', { cursor: 'nope' }))).toMatchObject({ error: { code: -32602 } });
  });
});

describe('skills/get', () => {
  test('the entry, the same as listed, with cache hints and no cursor', async () => {
    const s = server();
    const listed = (await call(s, modernRpc(1, 'skills/list'))).result!.skills as unknown[];
    const got = await call(s, modernRpc(2, 'skills/get', { uri: 'skill://pdf/SKILL.md' }));
    expect(got.result!.skill).toEqual(listed[1]);
    expect(got.result!).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(got.result!).not.toHaveProperty('nextCursor');
  });

  test('-32602 for a URI that is no skill (a supporting file, an unknown one, none at all)', async () => {
    const s = server();
    for (const params of [{ uri: 'skill://pdf/templates/a.md' }, { uri: 'skill://nope/SKILL.md' }, {}]) {
      expect(await call(s, modernRpc(1, 'skills/get', params))).toMatchObject({ error: { code: -32602 } });
    }
  });
});

describe('files and directories', () => {
  test('the SKILL.md is a listed resource named and described by its frontmatter, read back byte for byte', async () => {
    const s = server();
    const list = await call(s, modernRpc(1, 'resources/list'));
    expect(list.result!.resources).toContainEqual(
      expect.objectContaining({ uri: 'skill://pdf/SKILL.md', name: 'pdf', description: 'The pdf skill', mimeType: 'text/markdown' }),
    );
    const read = await call(s, modernRpc(2, 'resources/read', { uri: 'skill://pdf/SKILL.md' }));
    expect(read.result!.contents).toEqual([{ uri: 'skill://pdf/SKILL.md', mimeType: 'text/markdown', text: skillMd('pdf') }]);
  });

  test('a directory lists its direct children; a file, a traversal or an unknown URI is -32602', async () => {
    const s = server();
    const root = await call(s, modernRpc(1, 'resources/directory/read', { uri: 'skill://pdf' }));
    expect((root.result!.resources as Array<{ uri: string; mimeType: string }>).map((r) => [r.uri, r.mimeType])).toEqual([
      ['skill://pdf/SKILL.md', 'text/markdown'],
      ['skill://pdf/templates', 'inode/directory'],
    ]);
    for (const uri of ['skill://pdf/SKILL.md', 'skill://pdf/templates/../../payroll', 'skill://pdf/./templates', 'skill://pdf/templates/', 'skill://pdf/%2e%2e', 'file:///etc']) {
      expect(await call(s, modernRpc(2, 'resources/directory/read', { uri }))).toMatchObject({ error: { code: -32602 } });
    }
  });

  test('without directoryRead the method is not there', async () => {
    expect(await call(server({ directoryRead: false }), modernRpc(1, 'resources/directory/read', { uri: 'skill://pdf' }))).toMatchObject({ error: { code: -32601 } });
  });
});

describe('authorization like every read', () => {
  const clerk = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'clerk', clientId: 'app', scopes: [] });
  const hr = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'hr', clientId: 'app', scopes: ['hr'] });

  test('a skill whose scopes the principal lacks is not listed, not gettable, not readable', async () => {
    const s = server();
    const listed = await call(s, modernRpc(1, 'skills/list'), { principal: clerk });
    expect((listed.result!.skills as Array<{ uri: string }>).map((e) => e.uri)).toEqual(['skill://pdf/SKILL.md']);
    expect(await call(s, modernRpc(2, 'skills/get', { uri: 'skill://payroll/SKILL.md' }), { principal: clerk })).toMatchObject({
      error: { code: -31090, data: { detail: 'insufficient_scope:hr' } },
    });
    expect(await call(s, modernRpc(3, 'resources/read', { uri: 'skill://payroll/SKILL.md' }), { principal: clerk })).toMatchObject({ error: { code: -31090 } });
    expect(await call(s, modernRpc(4, 'resources/directory/read', { uri: 'skill://payroll' }), { principal: clerk })).toMatchObject({ error: { code: -32602 } });
    const forHr = await call(s, modernRpc(5, 'skills/list'), { principal: hr });
    expect((forHr.result!.skills as unknown[]).length).toBe(2);
  });

  test('the read authorizer denies skills/list, skills/get and directory reads', async () => {
    const s = server({}, { readAuthorizer: denyAll() });
    for (const [method, params] of [['skills/list', {}], ['skills/get', { uri: 'skill://pdf/SKILL.md' }], ['resources/directory/read', { uri: 'skill://pdf' }]] as const) {
      expect(await call(s, modernRpc(1, method, params))).toMatchObject({ error: { code: -31090, data: { method } } });
    }
  });
});
