/**
 * The sealed requestState: a state opens only for the request, audience and
 * owner it was sealed for, under a key of the ring, before its expiry; every
 * other token is refused with the reason that failed first (for the logs),
 * while the client only ever sees the one fixed -32602.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { INVALID_PARAMS, invalidRequestState } from '../../lib/errors.js';
import { argumentsDigest } from '../../lib/canonical-json.js';
import { createKeyRing, deriveRingKey, type KeyRing } from '../../lib/ports/key-ring.js';
import { RequestStateCodec, type SealInput, type StateBinding } from '../../lib/mrtr/request-state.js';
import { silentLogger, type Logger } from '../../lib/logger.js';

const SECRET_A = 'a'.repeat(16) + '-first-secret-32+';
const SECRET_B = 'b'.repeat(16) + '-other-secret-32+';

function ring(...secrets: string[]): KeyRing {
  return createKeyRing(secrets.map((s) => Buffer.from(s, 'utf8')), silentLogger());
}

function codec(keys: KeyRing = ring(SECRET_A), audience = 'files-server', maxBytes = 4096): RequestStateCodec {
  return new RequestStateCodec(keys, { audience, maxBytes });
}

const ARGS = { path: '/etc/hosts', force: true };
const BINDING: StateBinding = {
  kind: 'rxmcp.approve',
  method: 'tools/call',
  target: 'delete_file',
  argumentsDigest: argumentsDigest(ARGS),
  owner: 'conn-1',
};
const SEAL: SealInput = { ...BINDING, argumentsDigest: argumentsDigest(ARGS) as string, ticketId: 'tid-1', issuedAt: 1_000, expiresAt: 61_000 };

describe('sealing and opening', () => {
  test('a state opens for its own request and gives back its claims; the token is small and says nothing in clear', () => {
    const c = codec();
    const token = c.seal({ ...SEAL, promptDigest: 'pd' });
    expect(token).toMatch(/^rxs1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThan(512);
    for (const clear of ['delete_file', 'conn-1', 'tools/call', 'tid-1', 'files-server']) {
      expect(Buffer.from(token.split('.')[2] as string, 'base64url').toString('latin1')).not.toContain(clear);
    }
    expect(c.open(token, BINDING, 30_000)).toEqual({
      ok: true,
      state: { kind: 'rxmcp.approve', ticketId: 'tid-1', issuedAt: 1_000, expiresAt: 61_000, promptDigest: 'pd' },
    });
  });

  test('an approval ticket fits the smallest cap allowed (512) whatever the names: target, owner and audience travel as digests', () => {
    const c = codec(ring(SECRET_A), 'x'.repeat(10_000), 512);
    const token = c.seal({
      ...SEAL,
      method: 'resources/read',
      target: `file:///${'deep/'.repeat(2_000)}`,
      owner: 'principal:'.repeat(500),
      ticketId: 'A'.repeat(22),
      issuedAt: Date.UTC(2300, 0, 1),
      expiresAt: Date.UTC(2300, 0, 1) + 600_000,
      promptDigest: 'P'.repeat(22),
    });
    expect(token.length).toBeLessThanOrEqual(512);
  });

  test('two seals of one input differ (a fresh IV each time) and both open', () => {
    const c = codec();
    const [first, second] = [c.seal(SEAL), c.seal(SEAL)];
    expect(first).not.toBe(second);
    expect(c.open(first, BINDING, 0).ok).toBe(true);
    expect(c.open(second, BINDING, 0).ok).toBe(true);
  });

  test('arguments in another key order are the same arguments', () => {
    const token = codec().seal(SEAL);
    expect(codec().open(token, { ...BINDING, argumentsDigest: argumentsDigest({ force: true, path: '/etc/hosts' }) }, 0).ok).toBe(true);
  });

  test('a payload rides along; one that would pass the size cap cannot be sealed', () => {
    const c = codec(ring(SECRET_A), 'files-server', 1024);
    const token = c.seal({ ...SEAL, kind: 'rxmcp.state', payload: { answers: { q1: 'yes' } } });
    expect(c.open(token, { ...BINDING, kind: 'rxmcp.state' }, 0)).toMatchObject({ ok: true, state: { payload: { answers: { q1: 'yes' } } } });
    expect(() => c.seal({ ...SEAL, kind: 'rxmcp.state', payload: 'x'.repeat(1024) })).toThrow(RangeError);
  });
});

describe('expiry on the server clock', () => {
  test('open at exp - 1; expired at exp and at exp + 1, with the state (authentic, so the "timed out" deny)', () => {
    const c = codec();
    const token = c.seal(SEAL);
    expect(c.open(token, BINDING, 60_999).ok).toBe(true);
    expect(c.open(token, BINDING, 61_000)).toMatchObject({ ok: false, reason: 'expired', state: { ticketId: 'tid-1' } });
    expect(c.open(token, BINDING, 61_001)).toMatchObject({ ok: false, reason: 'expired', state: { ticketId: 'tid-1' } });
  });

  test('with a skew allowance (a shared ledger on its own clock decides): open through exp + allowance - 1, expired from exp + allowance', () => {
    const c = codec();
    const token = c.seal(SEAL);
    expect(c.open(token, BINDING, 61_000, 1500).ok).toBe(true);
    expect(c.open(token, BINDING, 62_499, 1500).ok).toBe(true);
    expect(c.open(token, BINDING, 62_500, 1500)).toMatchObject({ ok: false, reason: 'expired', state: { ticketId: 'tid-1', expiresAt: 61_000 } });
    // No allowance is the exact bound, as without the argument.
    expect(c.open(token, BINDING, 61_000, 0)).toMatchObject({ ok: false, reason: 'expired' });
  });

  test('expiry is checked before the binding: an expired state for another tool is still only expired', () => {
    const c = codec();
    expect(c.open(c.seal(SEAL), { ...BINDING, target: 'other' }, 61_001)).toMatchObject({ reason: 'expired' });
  });
});

describe('refusals, each with the reason that failed first', () => {
  const c = codec();
  const token = c.seal(SEAL);

  test.each([
    ['wrong_kind', { kind: 'rxmcp.state' as const }],
    ['wrong_method', { method: 'prompts/get' }],
    ['wrong_target', { target: 'delete_files' }],
    ['wrong_arguments', { argumentsDigest: argumentsDigest({ ...ARGS, path: '/etc/passwd' }) }],
    ['wrong_arguments', { argumentsDigest: null }],
    ['wrong_owner', { owner: 'conn-2' }],
  ])('%s: %j', (reason, change) => {
    expect(c.open(token, { ...BINDING, ...change }, 0)).toEqual({ ok: false, reason });
  });

  test('another audience sharing the key ring cannot open it', () => {
    expect(codec(ring(SECRET_A), 'billing-server').open(token, BINDING, 0)).toEqual({ ok: false, reason: 'wrong_audience' });
  });

  test('a ring without the key does not know its id', () => {
    expect(codec(ring(SECRET_B)).open(token, BINDING, 0)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  test('every single changed character is refused, wherever it is', () => {
    const reasons = new Set<string>();
    for (let i = 0; i < token.length; i++) {
      const replacement = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
      const result = c.open(tampered, BINDING, 0);
      expect(result.ok, `position ${i}`).toBe(false);
      if (!result.ok) reasons.add(result.reason);
    }
    // The prefix, the key id, the body: refused before or at the AEAD, never later.
    expect([...reasons].every((r) => ['malformed', 'unknown_key', 'unauthentic'].includes(r))).toBe(true);
    expect(reasons).toContain('unauthentic');
    expect(reasons).toContain('unknown_key');
  });

  test('a key id swapped for another key of the ring is refused at the AEAD', () => {
    const both = ring(SECRET_B, SECRET_A);
    const sealedWithA = codec(ring(SECRET_A)).seal(SEAL);
    const idOfB = deriveRingKey(Buffer.from(SECRET_B)).id;
    const swapped = sealedWithA.replace(/^rxs1\.[^.]+\./, `rxs1.${idOfB}.`);
    expect(codec(both).open(swapped, BINDING, 0)).toEqual({ ok: false, reason: 'unauthentic' });
  });

  test('malformed: not a string, another prefix, missing parts, a second spelling of the same bytes', () => {
    for (const bad of [undefined, 42, { token }, '', 'rxs1', token.replace(/^rxs1/, 'rxs2'), token.split('.').slice(0, 2).join('.'), `${token}.x`, `${token}=`]) {
      expect(c.open(bad, BINDING, 0)).toEqual({ ok: false, reason: 'malformed' });
    }
    // The last character's unused low bits changed: Buffer would decode the same bytes.
    const body = token.split('.')[2] as string;
    if (body.length % 4 !== 0) {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const last = alphabet.indexOf(body.at(-1) as string);
      const twin = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
      expect(Buffer.from(twin.split('.')[2] as string, 'base64url')).toEqual(Buffer.from(body, 'base64url'));
      expect(c.open(twin, BINDING, 0)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  test('oversize is refused before the key ring is consulted', () => {
    let lookups = 0;
    const inner = ring(SECRET_A);
    const counting: KeyRing = { generated: false, sealing: () => inner.sealing(), find: (id) => (lookups++, inner.find(id)) };
    const small = new RequestStateCodec(counting, { audience: 'files-server', maxBytes: 600 });
    const big = `rxs1.${inner.sealing().id}.${'A'.repeat(600)}`;
    expect(small.open(big, BINDING, 0)).toEqual({ ok: false, reason: 'oversize' });
    expect(lookups).toBe(0);
    expect(small.open(small.seal(SEAL), BINDING, 0).ok).toBe(true);
    expect(lookups).toBe(1);
  });

  test('authentic bytes whose claims are not this version are refused (bad_claims)', () => {
    const key = deriveRingKey(Buffer.from(SECRET_A));
    const forge = (claims: unknown) => {
      const header = `rxs1.${key.id}`;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.aeadKey, iv);
      cipher.setAAD(Buffer.from(header));
      const body = Buffer.concat([iv, cipher.update(JSON.stringify(claims)), cipher.final(), cipher.getAuthTag()]);
      return `${header}.${body.toString('base64url')}`;
    };
    const good = { v: 1, kind: 'rxmcp.approve', tid: 't', m: 'tools/call', t: 'x', a: 'x', own: 'x', aud: 'x', iat: 0, exp: 10 };
    expect(c.open(forge(good), BINDING, 0)).toMatchObject({ ok: false, reason: 'wrong_target' });
    for (const bad of [{ ...good, v: 2 }, { ...good, kind: 'other' }, { ...good, exp: 'soon' }, { ...good, own: 7 }, [good], 'text']) {
      expect(c.open(forge(bad), BINDING, 0)).toEqual({ ok: false, reason: 'bad_claims' });
    }
  });
});

describe('the key ring', () => {
  test('rotation: the old key still opens what it sealed, the new one seals; a ring without the new key cannot open those', () => {
    const before = codec(ring(SECRET_A));
    const during = codec(ring(SECRET_B, SECRET_A));
    const old = before.seal(SEAL);
    expect(during.open(old, BINDING, 0).ok).toBe(true);
    const fresh = during.seal(SEAL);
    expect(fresh.split('.')[1]).toBe(deriveRingKey(Buffer.from(SECRET_B)).id);
    expect(during.open(fresh, BINDING, 0).ok).toBe(true);
    expect(before.open(fresh, BINDING, 0)).toEqual({ ok: false, reason: 'unknown_key' });
    expect(codec(ring(SECRET_B)).open(old, BINDING, 0)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  test('the owner tag depends on the key: an owner check cannot be carried from one secret to another', () => {
    const a = deriveRingKey(Buffer.from(SECRET_A));
    const b = deriveRingKey(Buffer.from(SECRET_B));
    expect(a.ownerSalt.equals(b.ownerSalt)).toBe(false);
    expect(a.aeadKey.equals(a.ownerSalt)).toBe(false);
  });

  test('with no secret, a per-process key is made on first use with one loud warning; two processes cannot open each other', () => {
    const warnings: unknown[] = [];
    const logger: Logger = { ...silentLogger(), warn: (obj, msg) => warnings.push([obj, msg]) };
    const mine = createKeyRing([], logger);
    expect(mine.generated).toBe(true);
    expect(warnings).toEqual([]);
    const c1 = codec(mine);
    const token = c1.seal(SEAL);
    c1.seal(SEAL);
    expect(warnings).toEqual([[{ option: 'requestStateKeys' }, expect.stringContaining('requestStateKeys is not set')]]);
    expect(c1.open(token, BINDING, 0).ok).toBe(true);
    expect(codec(createKeyRing([], silentLogger())).open(token, BINDING, 0)).toEqual({ ok: false, reason: 'unknown_key' });
  });

  test('the same secret twice is a configuration error', () => {
    expect(() => ring(SECRET_A, SECRET_A)).toThrow(/requestStateKeys lists the same secret twice/);
  });
});

describe('the public error', () => {
  test('one fixed -32602 whatever failed', () => {
    expect(invalidRequestState(7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: INVALID_PARAMS, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } },
    });
  });
});
