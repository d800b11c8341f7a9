/**
 * jwtBearer's cache of verified tokens: a token presented again (every
 * request of a session carries it) is answered from the cache, the same
 * principal, without another signature check; an entry lasts until the
 * token's exp or cacheTtlMs, whichever is first, on the server's virtual
 * clock; the cache is bounded (least recently used goes first) and can be
 * turned off; failures are never cached.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
import { ConfigError, jwtBearer } from '../../lib/index.js';
import { bearer, principalOf } from './bearer-outcomes.js';
import { epochClock, seconds, startFakeAs, T0, type FakeAs } from './fake-as.js';

const RESOURCE = 'https://mcp.example.com/mcp';

let as: FakeAs;
let clock: ReturnType<typeof epochClock>;
beforeEach(async () => {
  as = await startFakeAs();
  clock = epochClock();
});
afterEach(async () => {
  await as.close();
});

const token = (sub: string, expiresIn = 600) => as.sign({ iss: as.issuer, sub, aud: RESOURCE, client_id: 'app', exp: seconds(T0) + expiresIn });
const authenticator = (options: Partial<Parameters<typeof jwtBearer>[0]> = {}) =>
  jwtBearer({ issuer: as.issuer, jwksUri: as.jwksUri, audiences: [RESOURCE], scheduler: clock.scheduler, ...options });

test('a token presented again is the cached principal until cacheTtlMs passes on the virtual clock', async () => {
  const auth = authenticator({ cacheTtlMs: 30_000 });
  const alice = await token('alice');
  const first = principalOf(await auth.authenticate(bearer(alice)));
  expect(principalOf(await auth.authenticate(bearer(alice)))).toBe(first);
  clock.advance(29_999);
  expect(principalOf(await auth.authenticate(bearer(alice)))).toBe(first);
  clock.advance(1);
  const again = principalOf(await auth.authenticate(bearer(alice)));
  expect(again).not.toBe(first);
  expect(again).toEqual(first);
});

test('an entry never outlives its token: at exp the token is refused, not served from the cache', async () => {
  const auth = authenticator();
  const short = await token('alice', 10);
  principalOf(await auth.authenticate(bearer(short)));
  clock.advance(10_000);
  expect(await auth.authenticate(bearer(short))).toMatchObject({ status: 401, error: 'invalid_token', description: 'the token has expired' });
});

test('bounded: past cacheMax the least recently used is verified again; cacheMax 0 turns it off', async () => {
  const auth = authenticator({ cacheMax: 2 });
  const [a, b, c] = await Promise.all([token('a'), token('b'), token('c')]);
  const pa = principalOf(await auth.authenticate(bearer(a)));
  const pb = principalOf(await auth.authenticate(bearer(b)));
  expect(principalOf(await auth.authenticate(bearer(a)))).toBe(pa);
  principalOf(await auth.authenticate(bearer(c)));
  expect(principalOf(await auth.authenticate(bearer(a)))).toBe(pa);
  expect(principalOf(await auth.authenticate(bearer(b)))).not.toBe(pb);
  const off = authenticator({ cacheMax: 0 });
  expect(principalOf(await off.authenticate(bearer(a)))).not.toBe(principalOf(await off.authenticate(bearer(a))));
});

test('a failure is not cached: a token refused for its audience stays refused, and a good one after it passes', async () => {
  const auth = authenticator();
  const wrong = await as.sign({ iss: as.issuer, sub: 'alice', aud: 'https://other.example.com', exp: seconds(T0) + 600 });
  for (let i = 0; i < 2; i += 1) expect(await auth.authenticate(bearer(wrong))).toMatchObject({ status: 401, error: 'invalid_token' });
  principalOf(await auth.authenticate(bearer(await token('alice'))));
});

test('cacheMax and cacheTtlMs are validated', () => {
  for (const [option, value] of [['cacheMax', -1], ['cacheMax', 1.5], ['cacheTtlMs', 0], ['cacheTtlMs', 'long']] as const) {
    let error: unknown;
    try {
      authenticator({ [option]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe(`jwtBearer.${option}`);
  }
});
