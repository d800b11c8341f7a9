/**
 * jwtBearer against a loopback authorization server made in the test: what
 * passes (signature, allow-listed algorithm, exact issuer, RFC 8707 audience,
 * exp on the server's virtual clock), what fails and how (401 invalid_token,
 * 500 when keys cannot be had), JWKS discovery from RFC 8414 / OIDC
 * metadata, and an unknown-kid storm that cannot hammer the JWKS endpoint.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { base64url } from 'jose';
import { ConfigError, isAuthFailure, isPrincipal, jwtBearer } from '../../lib/index.js';
import { bearer, principalOf } from './bearer-outcomes.js';
import { epochClock, seconds, signingKey, startFakeAs, T0, type FakeAs } from './fake-as.js';

const RESOURCE = 'https://mcp.example.com/mcp';

describe('jwtBearer', () => {
  let as: FakeAs;
  let clock: ReturnType<typeof epochClock>;
  beforeEach(async () => {
    as = await startFakeAs();
    clock = epochClock();
  });
  afterEach(async () => {
    await as.close();
  });

  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: as.issuer,
    sub: 'user-1',
    aud: RESOURCE,
    client_id: 'client-a',
    scope: 'files:read files:write',
    jti: 'token-1',
    iat: seconds(T0),
    exp: seconds(T0) + 600,
    email: 'u1@example.com',
    ...extra,
  });
  const authenticator = (options: Partial<Parameters<typeof jwtBearer>[0]> = {}) =>
    jwtBearer({ issuer: as.issuer, jwksUri: as.jwksUri, audiences: [RESOURCE], scheduler: clock.scheduler, ...options });

  test('a valid token becomes a frozen principal with the verified claims and no raw token', async () => {
    const token = await as.sign(claims());
    const principal = principalOf(await authenticator().authenticate(bearer(token)));
    expect(principal).toMatchObject({
      kind: 'oauth',
      issuer: as.issuer,
      subject: 'user-1',
      clientId: 'client-a',
      scopes: ['files:read', 'files:write'],
      audience: [RESOURCE],
      expiresAt: (seconds(T0) + 600) * 1000,
      tokenId: 'token-1',
    });
    expect(principal.claims.email).toBe('u1@example.com');
    expect(isPrincipal(principal)).toBe(true);
    expect(Object.isFrozen(principal.scopes)).toBe(true);
    expect(JSON.stringify(principal)).not.toContain(token);
    // The same user and client with a refreshed token keeps the key.
    const again = principalOf(await authenticator().authenticate(bearer(await as.sign(claims({ jti: 'token-2', scope: 'files:read' })))));
    expect(again.key).toBe(principal.key);
    // An ES256 key of the same set works too, and an azp stands in for client_id.
    const ec = principalOf(
      await authenticator().authenticate(bearer(await as.sign(claims({ client_id: undefined, azp: 'client-b' }), { key: as.keys[1] }))),
    );
    expect(ec.clientId).toBe('client-b');
  });

  test('scp arrays, a configured scope claim, and selected claims', async () => {
    const scp = principalOf(await authenticator().authenticate(bearer(await as.sign(claims({ scope: undefined, scp: ['a', 'b'] })))));
    expect(scp.scopes).toEqual(['a', 'b']);
    const custom = principalOf(
      await authenticator({ scopeClaim: 'permissions', claims: ['email'] }).authenticate(bearer(await as.sign(claims({ permissions: ['x'] })))),
    );
    expect(custom.scopes).toEqual(['x']);
    expect(custom.claims).toEqual({ email: 'u1@example.com' });
  });

  test('expiry is judged on the server scheduler (virtual clock), with the configured tolerance', async () => {
    const token = await as.sign(claims({ exp: seconds(T0) + 60 }));
    expect(isAuthFailure(await authenticator().authenticate(bearer(token)))).toBe(false);
    clock.advance(60_000);
    expect(await authenticator().authenticate(bearer(token))).toEqual({ status: 401, error: 'invalid_token', description: 'the token has expired' });
    expect(isAuthFailure(await authenticator({ clockToleranceMs: 5_000 }).authenticate(bearer(token)))).toBe(false);
    clock.advance(5_000);
    expect(isAuthFailure(await authenticator({ clockToleranceMs: 5_000 }).authenticate(bearer(token)))).toBe(true);
    // Not valid yet, until the clock gets there.
    const later = await as.sign(claims({ nbf: seconds(T0) + 3600, exp: seconds(T0) + 7200 }));
    expect(await authenticator().authenticate(bearer(later))).toMatchObject({ status: 401, description: 'the token is not valid yet' });
    clock.advance(3600_000);
    expect(isAuthFailure(await authenticator().authenticate(bearer(later)))).toBe(false);
  });

  test('a token without exp, or naming nobody, is refused', async () => {
    expect(await authenticator().authenticate(bearer(await as.sign(claims({ exp: undefined }))))).toMatchObject({
      status: 401,
      error: 'invalid_token',
      description: 'the token has no valid expiry',
    });
    expect(await authenticator().authenticate(bearer(await as.sign(claims({ sub: undefined, client_id: undefined }))))).toMatchObject({
      status: 401,
      description: 'the token names no subject or client',
    });
  });

  test('wrong audience (RFC 8707), wrong issuer, wrong typ: 401 invalid_token', async () => {
    const wrongAud = await as.sign(claims({ aud: 'https://other.example.com/mcp' }));
    expect(await authenticator().authenticate(bearer(wrongAud))).toEqual({
      status: 401,
      error: 'invalid_token',
      description: 'the token is not for this resource',
    });
    // Any one of the configured audiences will do; aud may be a list.
    const listed = await as.sign(claims({ aud: ['https://other.example.com', 'api://mcp'] }));
    expect(isAuthFailure(await authenticator({ audiences: [RESOURCE, 'api://mcp'] }).authenticate(bearer(listed)))).toBe(false);
    const wrongIss = await as.sign(claims({ iss: 'https://evil.example.com' }));
    expect(await authenticator().authenticate(bearer(wrongIss))).toMatchObject({ status: 401, description: 'the token is from another issuer' });
    const noTyp = await as.sign(claims());
    expect(await authenticator({ typ: 'at+jwt' }).authenticate(bearer(noTyp))).toMatchObject({ status: 401, error: 'invalid_token' });
    const typed = await as.sign(claims(), { typ: 'at+jwt' });
    expect(isAuthFailure(await authenticator({ typ: 'at+jwt' }).authenticate(bearer(typed)))).toBe(false);
  });

  test('wrong algorithm: HS256 signed with the public key material, alg none, a key outside the allow-list', async () => {
    const header = (h: object) => base64url.encode(JSON.stringify(h));
    const payload = base64url.encode(JSON.stringify(claims()));
    const none = `${header({ alg: 'none' })}.${payload}.`;
    expect(await authenticator().authenticate(bearer(none))).toEqual({
      status: 401,
      error: 'invalid_token',
      description: "the token's algorithm is not allowed",
    });
    // The classic confusion attack: HMAC keyed with the RSA public JWK's modulus.
    const { createHmac } = await import('node:crypto');
    const hsInput = `${header({ alg: 'HS256', kid: 'k-rsa' })}.${payload}`;
    const hs = `${hsInput}.${createHmac('sha256', String(as.keys[0]!.jwk.n)).update(hsInput).digest('base64url')}`;
    expect(await authenticator().authenticate(bearer(hs))).toEqual({
      status: 401,
      error: 'invalid_token',
      description: "the token's algorithm is not allowed",
    });
    // ES256 is a fine algorithm, but not on this authenticator's list.
    const es = await as.sign(claims(), { key: as.keys[1] });
    expect(await authenticator({ algorithms: ['RS256'] }).authenticate(bearer(es))).toMatchObject({
      status: 401,
      description: "the token's algorithm is not allowed",
    });
    // A token signed by a key the issuer never published.
    const stranger = await signingKey('k-rsa', 'RS256');
    expect(await authenticator().authenticate(bearer(await as.sign(claims(), { key: stranger })))).toMatchObject({
      status: 401,
      description: "the token's signature does not verify",
    });
    expect(await authenticator().authenticate(bearer('not.a.jwt'))).toMatchObject({ status: 401, error: 'invalid_token' });
  });

  test('an unknown-kid storm fetches the JWKS a bounded number of times (jose cooldown)', async () => {
    const auth = authenticator();
    const tokens = await Promise.all(Array.from({ length: 100 }, () => as.sign(claims(), { kid: randomUUID() })));
    // Concurrently, then sequentially: nothing verifies, and the JWKS endpoint sees one fetch.
    const concurrent = await Promise.all(tokens.map((token) => auth.authenticate(bearer(token))));
    for (const token of tokens) expect(await auth.authenticate(bearer(token))).toMatchObject({ status: 401, error: 'invalid_token' });
    expect(concurrent.every((outcome) => isAuthFailure(outcome) && outcome.status === 401)).toBe(true);
    expect(as.hits.get('/jwks')).toBe(1);
    // A known kid still verifies from the cache, with no further fetch.
    expect(isAuthFailure(await auth.authenticate(bearer(await as.sign(claims()))))).toBe(false);
    expect(as.hits.get('/jwks')).toBe(1);
  });

  test('with no cooldown, each unknown kid refetches: the counter sees the difference', async () => {
    const auth = authenticator({ jwksCooldownMs: 0 });
    for (let i = 0; i < 5; i += 1) await auth.authenticate(bearer(await as.sign(claims(), { kid: randomUUID() })));
    expect(as.hits.get('/jwks')).toBe(6);
  });

  test('a static key set needs no fetch', async () => {
    const auth = jwtBearer({ issuer: as.issuer, jwks: { keys: as.keys.map((key) => key.jwk) }, audiences: [RESOURCE], scheduler: clock.scheduler });
    expect(isAuthFailure(await auth.authenticate(bearer(await as.sign(claims()))))).toBe(false);
    expect(as.hits.size).toBe(0);
  });

  test('a JWKS endpoint that fails is a 500, never a pass', async () => {
    const auth = jwtBearer({ issuer: as.issuer, jwksUri: `${as.origin}/missing-jwks`, audiences: [RESOURCE], scheduler: clock.scheduler });
    expect(await auth.authenticate(bearer(await as.sign(claims())))).toMatchObject({ status: 500 });
  });

  test('no credentials, another scheme, a malformed header', async () => {
    const auth = authenticator();
    expect(await auth.authenticate({ headers: {} })).toEqual({ status: 401, description: 'authentication required' });
    expect(await auth.authenticate({ headers: { authorization: 'Basic dXNlcjpwYXNz' } })).toEqual({ status: 401, description: 'a Bearer token is required' });
    expect(await auth.authenticate({ headers: { authorization: 'Bearer ' } })).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(as.hits.size).toBe(0);
  });
});

describe('jwtBearer discovers the JWKS from the issuer metadata', () => {
  const servers: FakeAs[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  const claimsFor = (as: FakeAs) => ({ iss: as.issuer, sub: 'u', aud: RESOURCE, exp: seconds(T0) + 600 });

  test('RFC 8414 at the root, once for many requests', async () => {
    const as = await startFakeAs();
    servers.push(as);
    const clock = epochClock();
    const auth = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], scheduler: clock.scheduler });
    const token = await as.sign(claimsFor(as));
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => auth.authenticate(bearer(token))));
    expect(outcomes.every((outcome) => !isAuthFailure(outcome))).toBe(true);
    expect(as.hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    expect(as.hits.get('/jwks')).toBe(1);
  });

  test('RFC 8414 path insertion for an issuer with a path', async () => {
    const as = await startFakeAs({ issuerPath: '/tenant1' });
    servers.push(as);
    const auth = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], scheduler: epochClock().scheduler });
    expect(isAuthFailure(await auth.authenticate(bearer(await as.sign(claimsFor(as)))))).toBe(false);
    expect(as.hits.get('/.well-known/oauth-authorization-server/tenant1')).toBe(1);
  });

  test('OIDC discovery when there is no RFC 8414 document', async () => {
    const as = await startFakeAs({ issuerPath: '/realm', metadata: 'oidc' });
    servers.push(as);
    const auth = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], scheduler: epochClock().scheduler });
    expect(isAuthFailure(await auth.authenticate(bearer(await as.sign(claimsFor(as)))))).toBe(false);
    expect([...as.hits.keys()]).toEqual([
      '/.well-known/oauth-authorization-server/realm',
      '/.well-known/openid-configuration/realm',
      '/realm/.well-known/openid-configuration',
      '/jwks',
    ]);
  });

  test('no metadata: 500, and no retry before discoveryRetryMs on the virtual clock', async () => {
    const as = await startFakeAs({ metadata: 'none' });
    servers.push(as);
    const clock = epochClock();
    const auth = jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], scheduler: clock.scheduler, discoveryRetryMs: 10_000 });
    const token = await as.sign(claimsFor(as));
    expect(await auth.authenticate(bearer(token))).toMatchObject({ status: 500 });
    expect(await auth.authenticate(bearer(token))).toMatchObject({ status: 500 });
    expect(as.hits.get('/.well-known/oauth-authorization-server')).toBe(1);
    clock.advance(10_000);
    await auth.authenticate(bearer(token));
    expect(as.hits.get('/.well-known/oauth-authorization-server')).toBe(2);
  });

  test('a metadata document naming another issuer is not used', async () => {
    const as = await startFakeAs();
    servers.push(as);
    const auth = jwtBearer({ issuer: `${as.origin}/`, audiences: [RESOURCE], scheduler: epochClock().scheduler });
    expect(await auth.authenticate(bearer(await as.sign({ ...claimsFor(as), iss: `${as.origin}/` })))).toMatchObject({ status: 500 });
    expect(as.hits.get('/jwks')).toBeUndefined();
  });
});

describe('jwtBearer options', () => {
  test('each bad option is a ConfigError naming it', () => {
    const base = { issuer: 'https://as.example.com', audiences: [RESOURCE] };
    const bad: Array<[string, Record<string, unknown>]> = [
      ['jwtBearer.issuer', { issuer: 'http://as.example.com' }],
      ['jwtBearer.issuer', { issuer: 'not a url' }],
      ['jwtBearer.audiences', { audiences: [] }],
      ['jwtBearer.algorithms', { algorithms: ['HS256'] }],
      ['jwtBearer.algorithms', { algorithms: ['none'] }],
      ['jwtBearer.jwksUri', { jwksUri: 'ftp://as.example.com/jwks' }],
      ['jwtBearer.jwks', { jwks: { nope: true } }],
      ['jwtBearer.clockToleranceMs', { clockToleranceMs: -1 }],
      ['jwtBearer.jwksCooldownMs', { jwksCooldownMs: 1.5 }],
      ['jwtBearer.scheduler', { scheduler: {} }],
      ['jwtBearer.bogus', { bogus: 1 }],
    ];
    for (const [option, override] of bad) {
      let thrown: unknown;
      try {
        jwtBearer({ ...base, ...override } as Parameters<typeof jwtBearer>[0]);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, option).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).option).toBe(option);
    }
    expect(() => jwtBearer({ ...base, jwksUri: 'http://localhost:1/jwks' })).not.toThrow();
  });
});
