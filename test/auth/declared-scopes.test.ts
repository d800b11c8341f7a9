/**
 * Declared `requiredScopes` in the core, for every entry point (here the
 * direct caller, `handleMessage` with a principal): a caller whose principal
 * lacks them does not see the tool, resource, template or prompt in the
 * lists, and calling, reading, subscribing, getting or completing it is
 * refused with `insufficient_scope:<scopes>`; one holding them is served;
 * a call without a principal (no authenticator anywhere) is not judged by
 * declared scopes at all.
 */
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, type Principal } from '../../lib/index.js';
import { protectedRegistry } from './protected-http.js';

function server() {
  const registry = protectedRegistry()
    .registerPrompt({ name: 'draft', requiredScopes: ['notes:write'], arguments: [{ name: 'topic' }], get: () => 'draft', complete: { topic: () => ['secret topic'] } })
    .registerResourceTemplate({ uriTemplate: 'notes://tagged/{tag}', name: 'tagged', requiredScopes: ['notes:read'], read: () => 'tagged', complete: { tag: () => ['private'] } });
  return createServer({ registry });
}

const narrow = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'alice', clientId: 'app', scopes: ['mcp:use'] });
const broad = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'alice', clientId: 'app', scopes: ['mcp:use', 'notes:read', 'notes:write'] });

async function ask(principal: Principal | undefined, method: string, params: Record<string, unknown> = {}) {
  const s = server();
  const reply = (await s.handleMessage({ jsonrpc: '2.0', id: 1, method, params }, principal === undefined ? {} : { principal })) as Record<string, any>;
  s.close();
  return reply;
}

const names = (items: { name: string }[]) => items.map((item) => item.name);

describe('declared scopes in the core', () => {
  test('lists leave out what the principal lacks the scopes for; without a principal nothing is left out', async () => {
    for (const [principal, tools, resources, templates, prompts] of [
      [narrow, ['whoami'], ['public'], [], ['summarize']],
      [broad, ['whoami', 'delete_note'], ['public', 'secret'], ['by id', 'tagged'], ['summarize', 'redact', 'draft']],
      [undefined, ['whoami', 'delete_note'], ['public', 'secret'], ['by id', 'tagged'], ['summarize', 'redact', 'draft']],
    ] as const) {
      expect(names((await ask(principal, 'tools/list')).result.tools)).toEqual(tools);
      expect(names((await ask(principal, 'resources/list')).result.resources)).toEqual(resources);
      expect(names((await ask(principal, 'resources/templates/list')).result.resourceTemplates)).toEqual(templates);
      expect(names((await ask(principal, 'prompts/list')).result.prompts)).toEqual(prompts);
    }
  });

  test('using a target without its scopes is refused, naming all of them; with them it is served', async () => {
    const call = await ask(narrow, 'tools/call', { name: 'delete_note' });
    expect(call.result.isError).toBe(true);
    expect(JSON.parse(call.result.content[0].text)).toEqual({ error: 'authorization_required', tool: 'delete_note', decision: 'deny', detail: 'insufficient_scope:notes:write' });
    for (const [method, params, detail] of [
      ['resources/read', { uri: 'notes://secret' }, 'insufficient_scope:notes:read'],
      ['resources/read', { uri: 'notes://by-id/3' }, 'insufficient_scope:notes:read'],
      ['resources/subscribe', { uri: 'notes://secret' }, 'insufficient_scope:notes:read'],
      ['prompts/get', { name: 'redact' }, 'insufficient_scope:notes:write'],
      ['completion/complete', { ref: { type: 'ref/prompt', name: 'draft' }, argument: { name: 'topic', value: '' } }, 'insufficient_scope:notes:write'],
      ['completion/complete', { ref: { type: 'ref/resource', uri: 'notes://tagged/{tag}' }, argument: { name: 'tag', value: '' } }, 'insufficient_scope:notes:read'],
    ] as const) {
      expect(await ask(narrow, method, params), method).toMatchObject({ error: { code: -32090, data: { detail } } });
    }
    expect((await ask(broad, 'tools/call', { name: 'delete_note' })).result.content[0].text).toBe('deleted by alice [mcp:use notes:read notes:write]');
    expect((await ask(broad, 'resources/read', { uri: 'notes://secret' })).result.contents[0].text).toBe('secret notes');
    expect((await ask(broad, 'completion/complete', { ref: { type: 'ref/prompt', name: 'draft' }, argument: { name: 'topic', value: '' } })).result.completion.values).toEqual(['secret topic']);
    expect((await ask(undefined, 'tools/call', { name: 'delete_note' })).result.content[0].text).toBe('deleted by nobody []');
  });
});
