/**
 * maxResponseBytes on a virtual clock: a reply whose JSON is at most the
 * limit in UTF-8 bytes passes untouched; one byte more and it is replaced,
 * in the frame it arrives, by response_too_large (an isError result for
 * tools/call, -32603 for a read), and a warning names the call.
 */
import { map, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, maxResponseBytes, Registry } from '../../lib/index.js';
import { connectMarbles, newTestScheduler, readResource, textResult, toolCall } from './harness.js';

/** The size maxResponseBytes measures for a one-text-item tool result. */
const resultBytes = (text: string) => Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text }] }), 'utf8');

describe('maxResponseBytes', () => {
  test('at the limit passes; one byte over (a two-byte character) is response_too_large when the reply arrives', () => {
    const ts = newTestScheduler();
    const warnings: unknown[] = [];
    const limit = resultBytes('x'.repeat(10));
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({
        name: 'say',
        handler: (args) => timer(5, ts).pipe(map(() => String(args.text))),
      });
      const logger = { debug() {}, info() {}, warn: (obj: unknown) => warnings.push(obj), error() {} };
      const server = createServer({ registry, scheduler: ts, logger, middleware: [maxResponseBytes(limit)] });
      // 'é' is one character and two bytes: nine x's and an é are one byte over.
      const inbound = hot('-ab', { a: toolCall(1, 'say', { text: 'x'.repeat(10) }), b: toolCall(2, 'say', { text: `${'x'.repeat(9)}é` }) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 5ms ab', {
        a: textResult(1, 'x'.repeat(10)),
        b: textResult(2, `Error: response_too_large: ${limit + 1} bytes, over the ${limit}-byte limit`, true),
      });
    });
    expect(warnings).toEqual([expect.objectContaining({ connId: 'c1', method: 'tools/call', name: 'say', bytes: limit + 1, limit })]);
  });

  test('a read over the limit is -32603 with data.error "response_too_large"', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerResource({ uri: 'mem://big', name: 'big', read: () => 'y'.repeat(100) });
      const server = createServer({ registry, scheduler: ts, middleware: [maxResponseBytes(64)] });
      expectObservable(connectMarbles(server, 'c1', hot('-a', { a: readResource(1, 'mem://big') }))).toBe('-a', {
        a: {
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32603,
            message: 'MCP callback failed',
            data: { error: 'response_too_large', method: 'resources/read', detail: expect.stringMatching(/^\d+ bytes, over the 64-byte limit$/) },
          },
        },
      });
    });
  });
});
