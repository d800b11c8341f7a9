/**
 * The bench driver writes requests around their params (bench/driver/
 * modern-meta.ts requestText) instead of serialising the whole message: the
 * server must get the very bytes JSON.stringify would have sent, or the
 * benchmark measures something else. The sized envelope is the modern one
 * with its claim key misspelt (same length, same place).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { requestText, withModernMeta, type Envelope } from '../../bench/driver/modern-meta.js';

const SIZED_KEY = 'io.modelcontextprotocol/protocolVersioN';

function stringified(id: number, method: string, params: unknown, envelope: Envelope): string {
  if (envelope === 'none') return JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const modern = withModernMeta(params);
  if (envelope === 'modern') return JSON.stringify({ jsonrpc: '2.0', id, method, params: modern });
  const meta = modern._meta as Record<string, unknown>;
  const sized: Record<string, unknown> = { [SIZED_KEY]: meta['io.modelcontextprotocol/protocolVersion'], ...meta };
  delete sized['io.modelcontextprotocol/protocolVersion'];
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...modern, _meta: sized } });
}

const ENVELOPES: readonly Envelope[] = ['none', 'modern', 'sized'];

describe('requestText', () => {
  test.each([
    ['tools/call', { name: 'echo', arguments: { text: 'hello, benchmark' } }],
    ['server/discover', undefined],
    ['ping', {}],
    ['tools/call', { name: 'x', _meta: { progressToken: 1 } }],
    ['odd', [1, 2]],
    ['odd', null],
    ['odd', 'text'],
  ])('%s with %j: the bytes JSON.stringify writes, with each envelope', (method, params) => {
    for (const envelope of ENVELOPES) expect(requestText(7, method, params, envelope)).toBe(stringified(7, method, params, envelope));
  });

  test('property: any params object, any envelope', () => {
    fc.assert(
      fc.property(fc.nat(), fc.string(), fc.option(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 }), { nil: undefined }), fc.constantFrom(...ENVELOPES), (id, method, params, envelope) => {
        expect(requestText(id, method, params, envelope)).toBe(stringified(id, method, params, envelope));
      }),
      { numRuns: 400 },
    );
  });
});
