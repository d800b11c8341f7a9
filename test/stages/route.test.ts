import { map, mergeMap, of, type Observable } from 'rxjs';
import { asObservable } from '../../streams/reply-stream.js';
import { describe, expect, test } from 'vitest';
import { classifyEnvelope } from '../../streams/stages/classify-envelope.js';
import { decideEra } from '../../streams/stages/decide-era.js';
import { route, RoutedRequest, type Routed } from '../../streams/stages/route.js';
import { newTestScheduler } from '../marbles/harness.js';
import { call, echoed, incoming, init, stageServer, stdioOrigin } from './stage-fixture.js';

/** A reply now as itself; a routed request as its method and what its method's stream emits (tagged), so one marble shows both. */
function opened(routed: Routed): Observable<unknown> {
  if (!(routed instanceof RoutedRequest)) return of({ now: routed });
  return asObservable(routed.replies).pipe(map((reply) => ({ method: routed.scope.method, streamed: reply })));
}

describe('route', () => {
  test('a request comes out with its method\'s reply stream; invalid input and an unknown method as their error now; a notification as nothing', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = stdioOrigin();
      const out = cold('-a-b-c-d-e|', {
        a: incoming(init(1), origin),
        b: incoming(call(2), origin),
        c: incoming({ jsonrpc: '2.0', id: 3, method: 'no/such' }, origin),
        d: incoming({ jsonrpc: '2.0', method: 'notifications/initialized' }, origin),
        e: incoming({ jsonrpc: '2.0', id: 4 }, origin),
      }).pipe(classifyEnvelope(core), decideEra(core), route(core), mergeMap(opened));
      expectObservable(out).toBe('-a-b-c---e|', {
        a: { method: 'initialize', streamed: expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) }) },
        b: { method: 'tools/call', streamed: echoed(2) },
        c: { now: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Unknown method: no/such' } } },
        e: { now: { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Missing method' } } },
      });
    });
  });

  test('a routed request carries its scope (the origin\'s and the request\'s) and the message as it came', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = stdioOrigin('c9');
      const message = call(7);
      const out = cold('-a-b|', { a: incoming(init(1), origin), b: incoming(message, origin) }).pipe(
        classifyEnvelope(core),
        decideEra(core),
        route(core),
        map((routed) => (routed instanceof RoutedRequest ? { id: routed.scope.id, connId: routed.scope.connId, era: routed.scope.era, same: routed.message === message } : routed)),
      );
      expectObservable(out).toBe('-a-b|', {
        a: { id: 1, connId: 'c9', era: 'legacy', same: false },
        b: { id: 7, connId: 'c9', era: 'legacy', same: true },
      });
    });
  });

  test('notifications/cancelled reaches the cancellation table (what encode registers a waiting reply in)', () => {
    const ts = newTestScheduler();
    const cancelled: unknown[] = [];
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = stdioOrigin();
      core.cancellations.register(origin.connId, 2, { cancel: () => cancelled.push(2) });
      const out = cold('-a-c|', {
        a: incoming(init(1), origin),
        c: incoming({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }, origin),
      }).pipe(classifyEnvelope(core), decideEra(core), route(core), map((routed) => (routed instanceof RoutedRequest ? routed.scope.method : routed)));
      expectObservable(out).toBe('-a--|', { a: 'initialize' });
    });
    expect(cancelled).toEqual([2]);
  });
});
