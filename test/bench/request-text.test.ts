/**
 * The bench driver writes requests around their params (bench/driver/
 * modern-meta.ts requestText) instead of serialising the whole message: the
 * server must get the very bytes JSON.stringify would have sent, or the
 * benchmark measures something else.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { requestText, withModernMeta } from '../../bench/driver/modern-meta.js';

function stringified(id: number, method: string, params: unknown, modern: boolean): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: modern ? withModernMeta(params) : params });
}

describe('requestText', () => {
  test.each([
    ['tools/call', { name: 'echo', arguments: { text: 'hello, benchmark' } }],
    ['server/discover', undefined],
    ['ping', {}],
    ['tools/call', { name: 'x', _meta: { progressToken: 1 } }],
    ['odd', [1, 2]],
    ['odd', null],
    ['odd', 'text'],
  ])('%s with %j: the bytes JSON.stringify writes, in both eras', (method, params) => {
    for (const modern of [false, true]) expect(requestText(7, method, params, modern)).toBe(stringified(7, method, params, modern));
  });

  test('property: any params object, either era', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string(), fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }), { nil: undefined }), fc.boolean(), (id, method, params, modern) => {
        expect(requestText(id, method, params, modern)).toBe(stringified(id, method, params, modern));
      }),
      { numRuns: 400 },
    );
  });
});
