/**
 * Scope checks (with a hierarchy) and the principal-based authorizers,
 * composed with allowlist through allOf: first deny wins, else first ask,
 * else allow; synchronous while every part is; a server sees them through
 * tools/list and tools/call.
 */
import { describe, expect, test } from 'vitest';
import {
  allOf,
  allowlist,
  byPrincipal,
  ConfigError,
  createServer,
  hasScopes,
  makePrincipal,
  missingScopes,
  Registry,
  requireScopes,
  type AuthorizationContext,
  type Authorizer,
  type ScopeHierarchy,
} from '../../lib/index.js';

const reader = makePrincipal({ subject: 'reader', scopes: ['files:read'] });
const writer = makePrincipal({ subject: 'writer', scopes: ['files:write'] });
const admin = makePrincipal({ subject: 'admin', scopes: ['admin'] });
const HIERARCHY: ScopeHierarchy = { admin: ['files:write'], 'files:write': ['files:read'] };
const ctx = (principal?: typeof reader): AuthorizationContext =>
  principal === undefined ? { connId: 'c', transport: 'http' } : { connId: 'c', transport: 'http', principal };

describe('hasScopes / missingScopes', () => {
  test('exact by default; a hierarchy lets a broader scope satisfy a narrower one, transitively', () => {
    expect(hasScopes(reader, ['files:read'])).toBe(true);
    expect(hasScopes(writer, ['files:read'])).toBe(false);
    expect(hasScopes(writer, ['files:read'], HIERARCHY)).toBe(true);
    expect(hasScopes(admin, ['files:read', 'files:write'], HIERARCHY)).toBe(true);
    expect(hasScopes(reader, ['files:write'], HIERARCHY)).toBe(false);
    expect(missingScopes(reader, ['files:read', 'files:write', 'files:write'])).toEqual(['files:write']);
    expect(hasScopes(undefined, [])).toBe(false);
    expect(missingScopes(undefined, ['a'])).toEqual(['a']);
    // A hierarchy cycle ends.
    expect(hasScopes(makePrincipal({ subject: 'x', scopes: ['a'] }), ['c'], { a: ['b'], b: ['a', 'c'] })).toBe(true);
    // Inherited object keys are not scopes.
    expect(hasScopes(makePrincipal({ subject: 'x', scopes: ['constructor'] }), ['toString'], {})).toBe(false);
  });
});

describe('requireScopes, byPrincipal, allOf', () => {
  test('requireScopes: all scopes or a deny naming all of them; no principal is unauthenticated', () => {
    const needs = requireScopes('files:read', 'files:write');
    expect(needs('t', {}, ctx(makePrincipal({ subject: 'u', scopes: ['files:read', 'files:write', 'x'] })))).toBe('allow');
    expect(needs('t', {}, ctx(reader))).toEqual({ deny: 'insufficient_scope:files:read files:write' });
    expect(needs('t', {}, ctx())).toEqual({ deny: 'unauthenticated' });
    expect(() => requireScopes()).toThrow(ConfigError);
    expect(() => requireScopes('a b')).toThrow(ConfigError);
  });

  test('byPrincipal: decides on the principal; none is a deny', async () => {
    const owner = byPrincipal((principal, name, args) => (args.owner === principal.subject ? 'allow' : { deny: `not ${name} owner` }));
    expect(owner('edit', { owner: 'reader' }, ctx(reader))).toBe('allow');
    expect(owner('edit', { owner: 'writer' }, ctx(reader))).toEqual({ deny: 'not edit owner' });
    expect(owner('edit', { owner: 'reader' }, ctx())).toEqual({ deny: 'unauthenticated' });
    const later = byPrincipal(async (principal) => (principal.subject === 'admin' ? 'allow' : { ask: 'sure?' }));
    expect(await later('x', {}, ctx(reader))).toEqual({ ask: 'sure?' });
  });

  test('allOf with allowlist: first deny wins, then the first ask, then allow; stops at the deny', async () => {
    const calls: string[] = [];
    const spy = (label: string, inner: Authorizer): Authorizer => (name, args, c) => {
      calls.push(label);
      return inner(name, args, c);
    };
    const composed = allOf(
      spy('list', allowlist(['read', 'write'], { ask: { delete: 'Delete it?' } })),
      spy('scope', requireScopes('files:read')),
      spy('owner', byPrincipal(async (p, name) => (name === 'write' && !hasScopes(p, ['files:write'], HIERARCHY) ? { deny: 'read-only' } : 'allow'))),
    );
    expect(await composed('read', {}, ctx(reader))).toBe('allow');
    expect(await composed('write', {}, ctx(reader))).toEqual({ deny: 'read-only' });
    expect(await composed('delete', {}, ctx(reader))).toEqual({ ask: 'Delete it?' });
    calls.length = 0;
    expect(composed('other', {}, ctx(reader))).toEqual({ deny: 'not_allowlisted' });
    expect(calls).toEqual(['list']);
    calls.length = 0;
    expect(composed('delete', {}, ctx(writer))).toEqual({ deny: 'insufficient_scope:files:read' });
    expect(calls).toEqual(['list', 'scope']);
    // A deny after an ask still wins; an off-contract answer is a deny.
    expect(allOf(() => ({ ask: 'a' }), () => ({ deny: 'd' }))('t', {}, ctx())).toEqual({ deny: 'd' });
    expect(allOf(() => 'allow', (() => 'yes') as unknown as Authorizer)('t', {}, ctx())).toEqual({ deny: 'authorizer_contract_violation' });
    expect(await allOf(async () => ({ ask: 'first' }), () => ({ ask: 'second' }))('t', {}, ctx())).toEqual({ ask: 'first' });
    expect(() => allOf()).toThrow(ConfigError);
  });

  test('through a server: tools/list hides what requireScopes denies, tools/call is denied with the scopes', async () => {
    const registry = new Registry()
      .registerTool({ name: 'read', handler: () => 'read ok' })
      .registerTool({ name: 'write', handler: () => 'write ok' })
      .registerTool({ name: 'secret', handler: () => 'secret' });
    const authorizer = allOf(
      allowlist(['read', 'write']),
      byPrincipal((p, name) => (hasScopes(p, [name === 'write' ? 'files:write' : 'files:read'], HIERARCHY) ? 'allow' : { deny: `insufficient_scope:files:${name}` })),
    );
    const server = createServer({ registry, authorizer, authorizerSource: 'configured' });
    const list = async (principal?: typeof reader) => {
      const reply = await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, principal === undefined ? {} : { principal });
      return ((reply as { result: { tools: Array<{ name: string }> } }).result.tools).map((tool) => tool.name);
    };
    expect(await list(reader)).toEqual(['read']);
    expect(await list(writer)).toEqual(['read', 'write']);
    expect(await list()).toEqual([]);
    const call = await server.handleMessage({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write' } }, { principal: reader });
    expect(JSON.parse((call as { result: { content: Array<{ text: string }> } }).result.content[0]!.text)).toEqual({
      error: 'authorization_required',
      tool: 'write',
      decision: 'deny',
      detail: 'insufficient_scope:files:write',
    });
  });
});
