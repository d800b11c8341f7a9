import { map, mergeMap, of, type Observable } from 'rxjs';
import { asObservable, isReplyStream } from '../../streams/direct-source.js';
import { describe, expect, test } from 'vitest';
import { classifyEnvelope } from '../../streams/stages/classify-envelope.js';
import { decideEra } from '../../streams/stages/decide-era.js';
import { route, type Routed } from '../../streams/stages/route.js';
import { newTestScheduler } from '../marbles/harness.js';
import { call, echoed, incoming, init, stageServer, stdioOrigin } from './stage-fixture.js';

/** A reply now as itself, a reply stream as what it emits (tagged), so one marble shows both. */
function opened(routed: Routed): Observable<unknown> {
  return isReplyStream(routed) ? asObservable(routed).pipe(map((reply) => ({ streamed: reply }))) : of({ now: routed });
}

describe('route', () => {
  test('a request comes out as its reply stream; invalid input and an unknown method as their error now; a notification as nothing', () => {
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
        a: { streamed: expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) }) },
        b: { streamed: echoed(2) },
        c: { now: { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Unknown method: no/such' } } },
        e: { now: { jsonrpc: '2.0', id: 4, error: { code: -32600, message: 'Missing method' } } },
      });
    });
  });

  test('notifications/cancelled names a request in flight: its stream completes without a reply', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core, server } = stageServer(ts, {});
      server.registry.registerTool({ name: 'slow', handler: () => cold('----a|', { a: 'late' }) });
      const origin = stdioOrigin();
      const out = cold('-a-b-c|', {
        a: incoming(init(1), origin),
        b: incoming({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow' } }, origin),
        c: incoming({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } }, origin),
      }).pipe(classifyEnvelope(core), decideEra(core), route(core), mergeMap(opened));
      expectObservable(out).toBe('-a----|', { a: { streamed: expect.objectContaining({ id: 1 }) } });
    });
  });
});
