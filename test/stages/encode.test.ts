import { map, mergeMap, of, type Observable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import type { JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { ERAS } from '../../streams/methods/tables.js';
import { asObservable, isReplyStream } from '../../streams/reply-stream.js';
import { encode, type Encoded } from '../../streams/stages/encode.js';
import { RoutedRequest } from '../../streams/stages/route.js';
import type { RequestScope } from '../../streams/state/server-core.js';
import { newTestScheduler } from '../marbles/harness.js';
import { stageServer } from './stage-fixture.js';

type Reply = JsonRpcResponse | null;
const r = (id: number, text: string): JsonRpcResponse => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

function scope(id: number, method = 'tools/call', era: 'legacy' | 'modern' = 'legacy'): RequestScope {
  return { connId: 'c1', transport: 'stdio', peer: 'c1', mode: 'reply', id, method, params: {}, era };
}

/** A reply now as itself, a reply stream as what it emits when opened (tagged). */
function opened(encoded: Encoded): Observable<unknown> {
  return isReplyStream(encoded) ? asObservable(encoded).pipe(map((reply) => ({ streamed: reply }))) : of({ now: encoded });
}

describe('encode', () => {
  test('a reply now passes as it is; a request becomes the first value of its stream, then complete', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { core } = stageServer(ts);
      const replies = cold<Reply>('---x--y|', { x: r(2, 'x'), y: r(2, 'y') });
      const routed = cold('-a-R|', { a: r(1, 'now'), R: new RoutedRequest(scope(2), {}, replies) });
      expectObservable(routed.pipe(encode(core), mergeMap(opened))).toBe('-a----(x|)', { a: { now: r(1, 'now') }, x: { streamed: r(2, 'x') } });
      expectSubscriptions(replies.subscriptions).toBe('---^--!');
    });
  });

  test("a modern request's reply in the modern era's wire shape", () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const modern = scope(3, 'tools/call', 'modern');
      const replies = cold<Reply>('--x|', { x: r(3, 'x') });
      const shaped = ERAS.modern.encode!(core, modern, r(3, 'x'));
      expect(shaped).not.toEqual(r(3, 'x'));
      expectObservable(of(new RoutedRequest(modern, {}, replies)).pipe(encode(core), mergeMap(opened))).toBe('--(x|)', { x: { streamed: shaped } });
    });
  });

  test('a cancel before the first value: nothing comes out, the stream is unsubscribed', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const { core } = stageServer(ts);
      const replies = cold<Reply>('-----x|', { x: r(4, 'late') });
      const out = of(new RoutedRequest(scope(4), {}, replies)).pipe(encode(core), mergeMap(opened));
      ts.schedule(() => core.cancellations.cancel('c1', 4), 2);
      expectObservable(out).toBe('--|');
      expectSubscriptions(replies.subscriptions).toBe('^-!');
    });
  });

  test('initialize cannot be cancelled: its reply still comes', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const replies = cold<Reply>('-----x|', { x: r(5, 'init') });
      const out = of(new RoutedRequest(scope(5, 'initialize'), {}, replies)).pipe(encode(core), mergeMap(opened));
      ts.schedule(() => core.cancellations.cancel('c1', 5), 2);
      expectObservable(out).toBe('-----(x|)', { x: { streamed: r(5, 'init') } });
    });
  });

  test('a failure inside the stream before its first value is answered as an internal error for the request', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const replies = cold<Reply>('--#', undefined, new Error('boom'));
      const out = of(new RoutedRequest(scope(6), {}, replies)).pipe(encode(core), mergeMap(opened));
      expectObservable(out).toBe('--(x|)', { x: { streamed: expect.objectContaining({ jsonrpc: '2.0', id: 6, error: expect.objectContaining({ code: -32603 }) }) } });
    });
  });
});
