/**
 * The Principal (frozen, keyed, validated), the two small authenticators
 * (staticTokens, customVerifier), and the RFC 9728 document and its paths.
 */
import { describe, expect, test } from 'vitest';
import {
  ConfigError,
  customVerifier,
  isAuthFailure,
  isPrincipal,
  makePrincipal,
  principalKey,
  protectedResourceMetadata,
  staticTokens,
  wellKnownPaths,
} from '../../lib/index.js';
import { epochClock, T0 } from './fake-as.js';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('makePrincipal', () => {
  test('deep-frozen, detached from its input, keyed by (issuer, subject, clientId)', () => {
    const claims = { roles: ['admin'], org: { id: 7 } };
    const principal = makePrincipal({ kind: 'oauth', issuer: 'https://as', subject: 'u', clientId: 'c', scopes: ['a', 'a', 'b'], claims });
    claims.roles.push('root');
    expect(principal.claims).toEqual({ roles: ['admin'], org: { id: 7 } });
    expect(principal.scopes).toEqual(['a', 'b']);
    expect(Object.isFrozen(principal) && Object.isFrozen(principal.claims.org) && Object.isFrozen(principal.claims.roles)).toBe(true);
    expect(() => (principal.scopes as string[]).push('x')).toThrow(TypeError);
    expect(principal.key).toBe(principalKey('https://as', 'u', 'c'));
    expect(makePrincipal({ issuer: 'https://as', subject: 'u', clientId: 'c', scopes: ['other'] }).key).toBe(principal.key);
    // No ambiguity between fields: moving text from one to another changes the key.
    expect(principalKey('a', 'b|c', undefined)).not.toBe(principalKey('a|b', 'c', undefined));
    expect(principalKey('a', undefined, 'c')).not.toBe(principalKey('a', 'c', undefined));
    expect(isPrincipal(principal)).toBe(true);
  });

  test('look-alikes are not principals; bad fields throw', () => {
    const real = makePrincipal({ subject: 'u' });
    expect(isPrincipal({ ...real })).toBe(false);
    expect(isPrincipal(Object.freeze({ ...real, subject: 'admin' }))).toBe(false);
    expect(isPrincipal(Object.freeze({ ...real, scopes: ['admin'] }))).toBe(false);
    expect(isPrincipal(null)).toBe(false);
    expect(() => makePrincipal({})).toThrow(TypeError);
    expect(() => makePrincipal({ subject: '' })).toThrow(TypeError);
    expect(() => makePrincipal({ subject: 'u', scopes: 'a b' as unknown as string[] })).toThrow(TypeError);
    expect(() => makePrincipal({ subject: 'u', kind: 'root' as 'local' })).toThrow(TypeError);
    expect(() => makePrincipal({ subject: 'u', expiresAt: Number.NaN })).toThrow(TypeError);
  });
});

describe('staticTokens and customVerifier', () => {
  test('staticTokens: a fixed table, expiry on the scheduler, bad entries refused at construction', async () => {
    const clock = epochClock();
    const auth = staticTokens(
      { 'dev-token': { subject: 'dev', scopes: ['all'] }, 'short-lived': { subject: 'tmp', expiresAt: T0 + 1000 } },
      { scheduler: clock.scheduler },
    );
    expect(await auth.authenticate(bearer('dev-token'))).toMatchObject({ kind: 'local', subject: 'dev', scopes: ['all'] });
    expect(await auth.authenticate(bearer('dev-tokenX'))).toEqual({ status: 401, error: 'invalid_token', description: 'the token is not valid' });
    expect(isAuthFailure(await auth.authenticate(bearer('short-lived')))).toBe(false);
    clock.advance(1000);
    expect(await auth.authenticate(bearer('short-lived'))).toMatchObject({ status: 401, description: 'the token has expired' });
    expect(() => staticTokens({ 'has space': { subject: 'x' } })).toThrow(ConfigError);
    expect(() => staticTokens({ ok: {} })).toThrow(ConfigError);
    expect(await staticTokens(new Map([['m', { clientId: 'svc' }]])).authenticate(bearer('m'))).toMatchObject({ clientId: 'svc' });
  });

  test('customVerifier: a principal init, a failure, null, and a throw (500, never a pass)', async () => {
    const seen: string[] = [];
    const auth = customVerifier(async (token, request) => {
      seen.push(`${token}@${request.url ?? ''}`);
      if (token === 'good') return { subject: 'svc', scopes: ['x'] };
      if (token === 'forbidden') return { status: 403, error: 'insufficient_scope', description: 'no', scope: ['x'] };
      if (token === 'boom') throw new Error('db down');
      if (token === 'garbage') return { scopes: ['admin'] };
      return null;
    });
    expect(await auth.authenticate({ ...bearer('good'), url: '/mcp' })).toMatchObject({ kind: 'custom', subject: 'svc', scopes: ['x'] });
    expect(await auth.authenticate(bearer('forbidden'))).toEqual({ status: 403, error: 'insufficient_scope', description: 'no', scope: ['x'] });
    expect(await auth.authenticate(bearer('other'))).toEqual({ status: 401, error: 'invalid_token', description: 'the token is not valid' });
    expect(await auth.authenticate(bearer('boom'))).toEqual({ status: 500, description: 'the token could not be verified' });
    expect(await auth.authenticate(bearer('garbage'))).toMatchObject({ status: 500 });
    expect(await auth.authenticate({ headers: {} })).toMatchObject({ status: 401 });
    expect(seen).toEqual(['good@/mcp', 'forbidden@', 'other@', 'boom@', 'garbage@']);
  });
});

describe('Protected Resource Metadata (RFC 9728)', () => {
  test('the document', () => {
    const document = protectedResourceMetadata({
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com', 'https://as.example.com'],
      scopesSupported: ['files:read', 'offline_access', 'files:write'],
      resourceName: 'Example MCP',
      resourceDocumentation: 'https://mcp.example.com/docs',
    });
    expect(document).toEqual({
      resource: 'https://mcp.example.com/mcp',
      authorization_servers: ['https://as.example.com'],
      scopes_supported: ['files:read', 'files:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Example MCP',
      resource_documentation: 'https://mcp.example.com/docs',
    });
    expect(Object.isFrozen(document)).toBe(true);
    expect(protectedResourceMetadata({ resource: 'http://localhost:3000/mcp', authorizationServers: ['http://127.0.0.1:9000'] })).toEqual({
      resource: 'http://localhost:3000/mcp',
      authorization_servers: ['http://127.0.0.1:9000'],
      bearer_methods_supported: ['header'],
    });
  });

  test('bad options name themselves', () => {
    const base = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'] };
    const bad: Array<[string, Record<string, unknown>]> = [
      ['protectedResourceMetadata.resource', { resource: 'https://mcp.example.com/mcp#frag' }],
      ['protectedResourceMetadata.resource', { resource: 'http://mcp.example.com/mcp' }],
      ['protectedResourceMetadata.authorizationServers', { authorizationServers: [] }],
      ['protectedResourceMetadata.authorizationServers', { authorizationServers: ['https://as.example.com?x=1'] }],
      ['protectedResourceMetadata.scopesSupported', { scopesSupported: ['a b'] }],
      ['protectedResourceMetadata.extra', { extra: true }],
    ];
    for (const [option, override] of bad) {
      let thrown: unknown;
      try {
        protectedResourceMetadata({ ...base, ...override } as Parameters<typeof protectedResourceMetadata>[0]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, option).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).option).toBe(option);
    }
  });

  test('well-known paths: path-aware and root (RFC 9728 §3.1)', () => {
    expect(wellKnownPaths('https://mcp.example.com/public/mcp')).toEqual({
      pathAware: '/.well-known/oauth-protected-resource/public/mcp',
      root: '/.well-known/oauth-protected-resource',
      url: 'https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp',
    });
    expect(wellKnownPaths('https://mcp.example.com')).toEqual({
      pathAware: '/.well-known/oauth-protected-resource',
      root: '/.well-known/oauth-protected-resource',
      url: 'https://mcp.example.com/.well-known/oauth-protected-resource',
    });
    expect(wellKnownPaths('http://localhost:8080/mcp?tenant=a').url).toBe('http://localhost:8080/.well-known/oauth-protected-resource/mcp?tenant=a');
  });
});
