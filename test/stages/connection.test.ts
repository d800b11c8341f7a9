import { map, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { connection } from '../../streams/connection.js';
import { newTestScheduler } from '../marbles/harness.js';
import { echoed, init, stageServer, stdioOrigin } from './stage-fixture.js';

describe('connection: the spine as one pipe', () => {
  test('each request answered when its work is done, inline methods at once; bad input gets its error; a slow call does not hold back the ones after it', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const { core, server } = stageServer(ts);
      server.registry.registerTool({ name: 'slow', handler: () => timer(5, ts).pipe(map(() => 'slow done')) });
      const inbound = hot('-i-s-e-p-x', {
        i: init(1),
        s: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } },
        e: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
        p: { jsonrpc: '2.0', id: 4, method: 'ping' },
        x: [1],
      });
      expectObservable(inbound.pipe(connection(core, stdioOrigin()))).toBe('-i---e-psx', {
        i: expect.objectContaining({ id: 1 }),
        s: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'slow done' }] } },
        e: echoed(3),
        p: { jsonrpc: '2.0', id: 4, result: {} },
        x: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: batch arrays are not supported' } },
      });
    });
  });

  test("the inbound's end is the peer gone: a call still in flight is cancelled, its handler's signal aborted, no reply", () => {
    const ts = newTestScheduler();
    const aborted: number[] = [];
    ts.run(({ cold, expectObservable }) => {
      const { core, server } = stageServer(ts);
      server.registry.registerTool({
        name: 'slow',
        handler: (_args, ctx) => {
          ctx.signal.addEventListener('abort', () => aborted.push(ts.now()));
          return timer(10, ts).pipe(map(() => 'late'));
        },
      });
      const inbound = cold('-i-s-|', { i: init(1), s: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } } });
      expectObservable(inbound.pipe(connection(core, stdioOrigin()))).toBe('-i---|', { i: expect.objectContaining({ id: 1 }) });
    });
    expect(aborted).toEqual([5]);
  });
});
