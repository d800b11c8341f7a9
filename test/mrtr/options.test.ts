/**
 * The MRTR options: validated at createServer (a ConfigError naming the
 * option), with finite defaults.
 */
import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { resolveOptions } from '../../lib/options.js';
import { silentLogger } from '../../lib/logger.js';
import { configErrorOf } from '../helpers/config-error.js';

const quiet = { logger: silentLogger() };
const SECRET = 'k'.repeat(32);

const refusal = (options: Record<string, unknown>): ConfigError => configErrorOf(() => resolveOptions({ ...quiet, ...options }));

describe('requestStateKeys', () => {
  test('unset: no keys (a per-process key is made on first use)', () => {
    expect(resolveOptions(quiet).requestStateKeys).toEqual([]);
  });

  test('strings are UTF-8 bytes, Uint8Arrays are copied; order kept (the first seals)', () => {
    const bytes = new Uint8Array(40).fill(7);
    const keys = resolveOptions({ ...quiet, requestStateKeys: [SECRET, bytes] }).requestStateKeys;
    expect(keys.map((k) => Buffer.from(k).toString('latin1'))).toEqual([SECRET, Buffer.from(bytes).toString('latin1')]);
    bytes.fill(0);
    expect(keys[1]?.[0]).toBe(7);
  });

  test.each([
    ['not an array', SECRET, /must be an array/],
    ['empty', [], /at least one secret/],
    ['a short string', ['k'.repeat(31)], /requestStateKeys\[0\] must be at least 32 bytes \(got 31\)/],
    ['short bytes', [SECRET, new Uint8Array(16)], /requestStateKeys\[1\] must be at least 32 bytes/],
    ['a number', [42], /requestStateKeys\[0\] must be a string or a Uint8Array/],
    ['the same secret twice', [SECRET, Buffer.from(SECRET)], /the same secret twice/],
    ['too many', Array.from({ length: 17 }, (_, i) => `${SECRET}${i}`), /at most 16/],
  ])('%s is refused', (_name, value, message) => {
    const error = refusal({ requestStateKeys: value });
    expect(error.option).toBe('requestStateKeys');
    expect(error.message).toMatch(message);
  });

  test('31 bytes of a multi-byte string count as bytes, not characters', () => {
    expect(resolveOptions({ ...quiet, requestStateKeys: ['é'.repeat(16)] }).requestStateKeys[0]?.length).toBe(32);
    expect(refusal({ requestStateKeys: ['é'.repeat(15) + 'x'] }).message).toMatch(/got 31/);
  });
});

describe('approvalTtlMs', () => {
  test('defaults to elicitationTimeoutMs', () => {
    expect(resolveOptions(quiet).approvalTtlMs).toBe(60_000);
    expect(resolveOptions({ ...quiet, elicitationTimeoutMs: 5_000 }).approvalTtlMs).toBe(5_000);
    expect(resolveOptions({ ...quiet, approvalTtlMs: 600_000 }).approvalTtlMs).toBe(600_000);
  });

  test.each([[0], [-1], [1.5], ['60000'], [Infinity]])('%j is refused', (value) => {
    expect(refusal({ approvalTtlMs: value }).option).toBe('approvalTtlMs');
  });
});

describe('maxRequestStateBytes', () => {
  test('defaults to 4096', () => {
    expect(resolveOptions(quiet).maxRequestStateBytes).toBe(4096);
    expect(resolveOptions({ ...quiet, maxRequestStateBytes: 512 }).maxRequestStateBytes).toBe(512);
  });

  test.each([[511], [0], [1024 * 1024 + 1], [4096.5], ['4096']])('%j is refused', (value) => {
    expect(refusal({ maxRequestStateBytes: value }).option).toBe('maxRequestStateBytes');
  });
});

describe('askWithoutElicitation', () => {
  test("defaults to 'missing-capability'; either value is kept", () => {
    expect(resolveOptions(quiet).askWithoutElicitation).toBe('missing-capability');
    expect(resolveOptions({ ...quiet, askWithoutElicitation: 'deny' }).askWithoutElicitation).toBe('deny');
    expect(resolveOptions({ ...quiet, askWithoutElicitation: 'missing-capability' }).askWithoutElicitation).toBe('missing-capability');
  });

  test.each([['Deny'], ['missing_capability'], [''], [null], [true], [0], [['deny']]])('%j is refused', (value) => {
    const error = refusal({ askWithoutElicitation: value });
    expect(error.option).toBe('askWithoutElicitation');
    expect(error.message).toMatch(/askWithoutElicitation must be "missing-capability" or "deny"/);
  });
});
