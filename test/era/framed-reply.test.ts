/**
 * A modern result is framed (lib/protocol/encode.ts, FramedResult): encodeMessage
 * writes `resultType` and the server's `_meta` as text and serialises only
 * the handler's members. The text must always be the one JSON.stringify
 * writes for the reply object, whatever the result holds and whatever was
 * done to it after it was framed.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createServer, encodeMessage, Registry } from '../../lib/index.js';
import { resolveCacheHints } from '../../lib/cache-hints.js';
import { FramedResult, takeFraming } from '../../lib/protocol/encode.js';
import { resultResponse, type JsonRpcResponse, type JsonRpcResultResponse } from '../../lib/protocol/jsonrpc.js';
import { encodeModernReply } from '../../streams/modern/encode.js';
import type { RequestScope, ServerCore } from '../../streams/state/server-core.js';
import { modernRpc, SERVER_INFO } from './modern-helpers.js';

const core = {
  options: { name: 'framed', serverVersion: '3.1.4', cacheHints: resolveCacheHints(undefined), authorizer: null, readAuthorizer: null },
} as unknown as ServerCore;

function scopeOf(method: string): RequestScope {
  return { method, params: {} } as unknown as RequestScope;
}

function shaped(result: unknown, method = 'tools/call', id: string | number = 1): JsonRpcResultResponse {
  return encodeModernReply(core, scopeOf(method), resultResponse(id, result)) as JsonRpcResultResponse;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('framed modern results', () => {
  test('a plain tool result is framed, and its text is the one JSON.stringify writes', () => {
    const text = vi.spyOn(FramedResult.prototype, 'text');
    const reply = shaped({ content: [{ type: 'text', text: 'héllo "quoted" \n line' }], isError: false, structuredContent: { n: 1.5, list: [null, true] } }, 'tools/call', 'id-1');
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
    expect(text).toHaveReturnedWith(expect.any(String));
    expect(JSON.parse(encodeMessage(reply)!)).toEqual({
      jsonrpc: '2.0',
      id: 'id-1',
      result: {
        resultType: 'complete',
        content: [{ type: 'text', text: 'héllo "quoted" \n line' }],
        isError: false,
        structuredContent: { n: 1.5, list: [null, true] },
        _meta: { [SERVER_INFO]: { name: 'framed', version: '3.1.4' } },
      },
    });
  });

  test('an empty result is framed too', () => {
    const reply = shaped({});
    expect(encodeMessage(reply)).toBe(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"${SERVER_INFO}":{"name":"framed","version":"3.1.4"}}}}`);
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
  });

  test('the server _meta of framed results is one frozen object', () => {
    const a = shaped({ content: [] }).result as Record<string, unknown>;
    const b = shaped({ content: [] }).result as Record<string, unknown>;
    expect(a._meta).toBe(b._meta);
    expect(Object.isFrozen(a._meta)).toBe(true);
    expect(Object.isFrozen((a._meta as Record<string, unknown>)[SERVER_INFO])).toBe(true);
  });

  test.each([
    ['its own _meta', { content: [], _meta: { mine: 1 } }],
    ['its own resultType', { content: [], resultType: 'complete' }],
    ['an unknown resultType', { content: [], resultType: 'later' }],
    ['a toJSON of its own', { content: [], toJSON: () => ({ swapped: true }) }],
    ['a prototype other than Object', Object.assign(Object.create({ inherited: 1 }) as object, { content: [] })],
  ])('a result with %s is not framed, and is written as JSON.stringify writes it', (_name, result) => {
    const reply = shaped(result);
    expect(takeFraming(reply.result)).toBeUndefined();
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
  });

  test('a result with cache hints (a cacheable method) is not framed', () => {
    const reply = shaped({ tools: [] }, 'tools/list');
    expect(takeFraming(reply.result)).toBeUndefined();
  });

  test('an input_required result is not framed', () => {
    const reply = shaped({ resultType: 'input_required', inputRequests: {} });
    expect(takeFraming(reply.result)).toBeUndefined();
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
  });

  test.each([
    ['a member replaced', (r: Record<string, unknown>) => { r.content = [{ type: 'text', text: 'changed' }]; }],
    ['a member added', (r: Record<string, unknown>) => { r.extra = 1; }],
    ['a member deleted', (r: Record<string, unknown>) => { delete r.isError; }],
    ['resultType changed', (r: Record<string, unknown>) => { r.resultType = 'other'; }],
    ['_meta replaced', (r: Record<string, unknown>) => { r._meta = { mine: true }; }],
    ['_meta deleted', (r: Record<string, unknown>) => { delete r._meta; }],
  ])('a result changed after it was framed (%s) is written as it is now', (_name, change) => {
    const reply = shaped({ content: [{ type: 'text', text: 'x' }], isError: false });
    change(reply.result as Record<string, unknown>);
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
  });

  test('a key starting with a digit (written first by JSON.stringify) falls back to the full text', () => {
    const reply = shaped({ content: [], '7': 'seven', '1a': 'x' });
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
  });

  test('only the result framed last is framed; an earlier reply is written in full, to the same text', () => {
    const first = shaped({ content: [{ type: 'text', text: 'first' }] }, 'tools/call', 1);
    const second = shaped({ content: [{ type: 'text', text: 'second' }] }, 'tools/call', 2);
    const text = vi.spyOn(FramedResult.prototype, 'text');
    expect(encodeMessage(first)).toBe(JSON.stringify(first));
    expect(text).not.toHaveBeenCalled();
    expect(encodeMessage(second)).toBe(JSON.stringify(second));
    expect(text).toHaveBeenCalledTimes(1);
    // Used once: encoding the same reply again serialises it in full.
    expect(encodeMessage(second)).toBe(JSON.stringify(second));
    expect(text).toHaveBeenCalledTimes(1);
  });

  test('a reply object not shaped as resultResponse makes it is written by JSON.stringify', () => {
    const reply = shaped({ content: [] }) as unknown as Record<string, unknown>;
    const reordered = { id: reply.id, jsonrpc: '2.0', result: reply.result };
    expect(encodeMessage(reordered as never)).toBe(JSON.stringify(reordered));
  });

  test('property: for any JSON-shaped result, the wire text is JSON.stringify of the reply', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }), fc.oneof(fc.integer(), fc.string()), (result, id) => {
        const reply = shaped(result, 'tools/call', id);
        expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
      }),
      { numRuns: 500 },
    );
  });

  test('through the server: a modern tools/call reply encodes to JSON.stringify of the reply object', async () => {
    const registry = new Registry().registerTool({ name: 'echo', handler: ({ text }) => String(text) });
    const server = createServer({ name: 'srv', serverVersion: '9.9.9', registry });
    const reply = (await server.handleMessage(modernRpc(5, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }))) as JsonRpcResponse;
    expect(encodeMessage(reply)).toBe(JSON.stringify(reply));
    expect(JSON.parse(encodeMessage(reply)!)).toEqual({
      jsonrpc: '2.0',
      id: 5,
      result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }], _meta: { [SERVER_INFO]: { name: 'srv', version: '9.9.9' } } },
    });
  });
});
