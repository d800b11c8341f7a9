/**
 * introspection (RFC 7662) against a loopback authorization server: active
 * and inactive answers, audience and expiry checks, the bounded cache keyed
 * by a token hash (hits, LRU bound, expiry on the virtual clock), one request
 * per token at a time, the pending bound, and failing closed.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, introspection, isAuthFailure, type AuthOutcome, type IntrospectionOptions } from '../../lib/index.js';
import { epochClock, seconds, startFakeAs, T0, type FakeAs } from './fake-as.js';
import { bearer } from './bearer-outcomes.js';

const RESOURCE = 'https://mcp.example.com/mcp';
const CLIENT = { id: 'rs client', secret: 's3cr:t' };

function active(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { active: true, sub: 'user-1', client_id: 'client-a', scope: 'files:read', aud: [RESOURCE], exp: seconds(T0) + 3600, ...extra };
}

describe('introspection', () => {
  let as: FakeAs | undefined;
  afterEach(async () => {
    await as?.close();
    as = undefined;
  });

  async function setup(answers: Record<string, Record<string, unknown>>, options: Partial<IntrospectionOptions> = {}) {
    as = await startFakeAs({ introspection: new Map(Object.entries(answers)), client: CLIENT });
    const clock = epochClock();
    const auth = introspection({
      endpoint: as.introspectionEndpoint,
      clientId: CLIENT.id,
      clientSecret: CLIENT.secret,
      audiences: [RESOURCE],
      scheduler: clock.scheduler,
      ...options,
    });
    const asked = () => as!.hits.get('/introspect') ?? 0;
    return { as, clock, auth, asked };
  }

  test('an active token becomes a principal; the request is an authenticated form POST', async () => {
    const { as, auth } = await setup({ 'tok-1': active({ iss: 'https://as.example.com', jti: 'j1', username: 'u1' }) });
    const outcome: AuthOutcome = await auth.authenticate(bearer('tok-1'));
    expect(outcome).toMatchObject({
      kind: 'oauth',
      issuer: 'https://as.example.com',
      subject: 'user-1',
      clientId: 'client-a',
      scopes: ['files:read'],
      audience: [RESOURCE],
      expiresAt: (seconds(T0) + 3600) * 1000,
      tokenId: 'j1',
      claims: { username: 'u1', sub: 'user-1' },
    });
    expect(isAuthFailure(outcome) ? undefined : outcome.claims.active).toBeUndefined();
    expect(Object.fromEntries(as.introspected[0]!)).toEqual({ token: 'tok-1', token_type_hint: 'access_token' });
  });

  test('inactive, wrong audience, expired, another issuer: 401 invalid_token', async () => {
    const { auth } = await setup(
      {
        aud: active({ aud: 'https://other.example.com' }),
        noaud: active({ aud: undefined }),
        expired: active({ exp: seconds(T0) - 1 }),
        iss: active({ iss: 'https://evil.example.com' }),
        weird: { active: 'true', sub: 'x', aud: RESOURCE },
      },
      { issuer: 'https://as.example.com' },
    );
    const failure = (description: string) => ({ status: 401, error: 'invalid_token', description });
    expect(await auth.authenticate(bearer('unknown'))).toEqual(failure('the token is not active'));
    expect(await auth.authenticate(bearer('weird'))).toEqual(failure('the token is not active'));
    expect(await auth.authenticate(bearer('aud'))).toEqual(failure('the token is not for this resource'));
    expect(await auth.authenticate(bearer('noaud'))).toEqual(failure('the token is not for this resource'));
    expect(await auth.authenticate(bearer('expired'))).toEqual(failure('the token has expired'));
    expect(await auth.authenticate(bearer('iss'))).toEqual(failure('the token is from another issuer'));
  });

  test('cache hit: the second use of a token asks nobody, for passes and rejections alike', async () => {
    const { auth, asked } = await setup({ 'tok-1': active() });
    const first = await auth.authenticate(bearer('tok-1'));
    const second = await auth.authenticate(bearer('tok-1'));
    expect(second).toBe(first);
    expect(asked()).toBe(1);
    // Inactive answers are cached too (briefly).
    await auth.authenticate(bearer('nope'));
    await auth.authenticate(bearer('nope'));
    expect(asked()).toBe(2);
  });

  test('concurrent uses of one token share one request', async () => {
    const { auth, asked } = await setup({ 'tok-1': active() });
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(bearer('tok-1'))));
    expect(outcomes.every((outcome) => !isAuthFailure(outcome))).toBe(true);
    expect(asked()).toBe(1);
  });

  test('the cache is bounded: least recently used goes first', async () => {
    const answers = Object.fromEntries(['a', 'b', 'c', 'd'].map((t) => [t, active({ sub: t })]));
    const { auth, asked } = await setup(answers, { cacheMax: 3 });
    for (const token of ['a', 'b', 'c']) await auth.authenticate(bearer(token));
    await auth.authenticate(bearer('a')); // a is now the most recent; b the least
    expect(asked()).toBe(3);
    await auth.authenticate(bearer('d')); // evicts b
    expect(asked()).toBe(4);
    await auth.authenticate(bearer('a'));
    await auth.authenticate(bearer('c'));
    expect(asked()).toBe(4);
    await auth.authenticate(bearer('b'));
    expect(asked()).toBe(5);
  });

  test('cache expiry on the virtual clock: cacheTtlMs, the token exp, and the negative TTL', async () => {
    const { auth, asked, clock } = await setup(
      { long: active(), short: active({ exp: seconds(T0) + 30 }) },
      { cacheTtlMs: 60_000, negativeCacheTtlMs: 1_000 },
    );
    await auth.authenticate(bearer('long'));
    await auth.authenticate(bearer('short'));
    await auth.authenticate(bearer('gone'));
    expect(asked()).toBe(3);
    clock.advance(999);
    for (const token of ['long', 'short', 'gone']) await auth.authenticate(bearer(token));
    expect(asked()).toBe(3);
    clock.advance(1); // the negative answer expires
    await auth.authenticate(bearer('gone'));
    expect(asked()).toBe(4);
    clock.advance(29_000); // T0 + 30 s: short's exp ends its cache entry, and the fresh answer says expired
    expect(await auth.authenticate(bearer('short'))).toMatchObject({ status: 401, description: 'the token has expired' });
    await auth.authenticate(bearer('long'));
    expect(asked()).toBe(5);
    clock.advance(30_000); // T0 + 60 s: long's TTL is over
    expect(isAuthFailure(await auth.authenticate(bearer('long')))).toBe(false);
    expect(asked()).toBe(6);
  });

  test('an authorization server that fails is a 500, not cached; wrong client credentials too', async () => {
    const { as, auth, asked } = await setup({ 'tok-1': active() });
    as.failIntrospection = 503;
    expect(await auth.authenticate(bearer('tok-1'))).toEqual({ status: 500, description: 'the token could not be introspected' });
    as.failIntrospection = 0;
    expect(isAuthFailure(await auth.authenticate(bearer('tok-1')))).toBe(false);
    expect(asked()).toBe(2);
    const wrongClient = introspection({ endpoint: as.introspectionEndpoint, clientId: 'x', clientSecret: 'y', audiences: [RESOURCE] });
    expect(await wrongClient.authenticate(bearer('tok-1'))).toMatchObject({ status: 500 });
  });

  test('an authorization server that does not answer times out on the scheduler: 500', async () => {
    // A listener that accepts and never answers.
    const { createServer } = await import('node:http');
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const clock = epochClock();
      const port = (silent.address() as { port: number }).port;
      const auth = introspection({
        endpoint: `http://127.0.0.1:${port}/introspect`,
        authorization: () => 'Bearer rs-token',
        audiences: [RESOURCE],
        timeoutMs: 2_000,
        maxPending: 1,
        scheduler: clock.scheduler,
      });
      const pending = auth.authenticate(bearer('tok-1'));
      // While one is pending, a different token is over maxPending: refused at once, never a pass.
      expect(await auth.authenticate(bearer('tok-2'))).toEqual({ status: 500, description: 'too many tokens being verified' });
      let settled = false;
      void pending.then(() => (settled = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      clock.advance(2_000);
      expect(await pending).toEqual({ status: 500, description: 'the token could not be introspected' });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('options are validated', () => {
    const base = { endpoint: 'https://as.example.com/introspect', clientId: 'a', clientSecret: 'b', audiences: [RESOURCE] };
    const bad: Array<[string, Record<string, unknown>]> = [
      ['introspection.endpoint', { endpoint: 'http://as.example.com/introspect' }],
      ['introspection.audiences', { audiences: undefined }],
      ['introspection.clientId', { clientSecret: undefined }],
      ['introspection.authorization', { authorization: () => 'x' }],
      ['introspection.cacheMax', { cacheMax: 0 }],
      ['introspection.cacheTtlMs', { cacheTtlMs: Number.POSITIVE_INFINITY }],
      ['introspection.maxPending', { maxPending: -1 }],
    ];
    for (const [option, override] of bad) {
      let thrown: unknown;
      try {
        introspection({ ...base, ...override } as IntrospectionOptions);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, option).toBeInstanceOf(ConfigError);
      expect((thrown as ConfigError).option).toBe(option);
    }
  });
});
