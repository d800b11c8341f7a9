/**
 * Canonical JSON binds a requestState to "these arguments": the same data in
 * any key order gives one text (so one digest), any other data another, and
 * hostile input (deep, huge, cyclic, not JSON) gives null instead of a
 * guess, a throw or a stack overflow.
 */
import { describe, expect, test } from 'vitest';
import { argumentsDigest, canonicalJson, shortDigest } from '../../lib/canonical-json.js';

describe('canonicalJson', () => {
  test('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  test('key order does not change the text; values do', () => {
    const parsed = JSON.parse('{"path":"/tmp/x","mode":"rw","opts":{"force":true,"depth":2}}') as unknown;
    const reordered = JSON.parse('{"opts":{"depth":2,"force":true},"mode":"rw","path":"/tmp/x"}') as unknown;
    expect(canonicalJson(parsed)).toBe(canonicalJson(reordered));
    expect(canonicalJson({ path: '/tmp/y', mode: 'rw', opts: { force: true, depth: 2 } })).not.toBe(canonicalJson(parsed));
  });

  test('keys sort by UTF-16 code units, strings and numbers are written as JSON.stringify writes them', () => {
    expect(canonicalJson({ é: 1, z: 2, Z: 3, '10': 4, '9': 5 })).toBe('{"10":4,"9":5,"Z":3,"z":2,"é":1}');
    expect(canonicalJson(['\u2028"\\', 1e21, 0.1, -0, '\ud800'])).toBe(JSON.stringify(['\u2028"\\', 1e21, 0.1, -0, '\ud800']));
  });

  test('a property whose value is undefined is absent, as in JSON', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  test('"__proto__" from JSON.parse is an ordinary key', () => {
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });

  test('what JSON cannot hold is refused, not guessed', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const value of [cyclic, { n: 1n }, { f: () => 1 }, { x: Number.NaN }, [Infinity], new Date(0), { m: new Map() }, Symbol('s'), undefined]) {
      expect(canonicalJson(value)).toBeNull();
    }
  });

  test('getters are not called and make the value refused', () => {
    let called = false;
    const value = Object.defineProperty({}, 'secret', {
      enumerable: true,
      get() {
        called = true;
        return 1;
      },
    });
    expect(canonicalJson(value)).toBeNull();
    expect(called).toBe(false);
  });

  test('a throwing Proxy is refused, not a throw', () => {
    const proxy = new Proxy({}, { getPrototypeOf: () => { throw new Error('trap'); } });
    expect(canonicalJson(proxy)).toBeNull();
  });

  test('depth is bounded: 64 levels pass, 65 do not; 100 000 levels do not overflow the stack', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 0;
      for (let i = 0; i < levels; i++) value = [value];
      return value;
    };
    expect(canonicalJson(nest(64))).not.toBeNull();
    expect(canonicalJson(nest(65))).toBeNull();
    expect(canonicalJson(nest(100_000))).toBeNull();
  });

  test('output size is bounded', () => {
    expect(canonicalJson({ s: 'x'.repeat(100) }, { maxDepth: 8, maxChars: 200 })).not.toBeNull();
    expect(canonicalJson({ s: 'x'.repeat(300) }, { maxDepth: 8, maxChars: 200 })).toBeNull();
    expect(canonicalJson(new Array(1000).fill(0), { maxDepth: 8, maxChars: 1000 })).toBeNull();
    expect(canonicalJson({ big: 'y'.repeat(1024 * 1024) })).toBeNull();
  });
});

describe('argumentsDigest', () => {
  test('22 base64url characters; absent arguments digest as {}', () => {
    expect(argumentsDigest({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
    expect(argumentsDigest({})).toBe(shortDigest('{}'));
  });

  test('the same for reordered keys, different for other values, null for what cannot be canonicalised', () => {
    expect(argumentsDigest({ a: 1, b: 2 })).toBe(argumentsDigest({ b: 2, a: 1 }));
    expect(argumentsDigest({ a: 1, b: 2 })).not.toBe(argumentsDigest({ a: 1, b: 3 }));
    expect(argumentsDigest({ a: '1' })).not.toBe(argumentsDigest({ a: 1 }));
    expect(argumentsDigest({ n: 1n })).toBeNull();
  });
});
