import { map } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { classifyEnvelope } from '../../streams/stages/classify-envelope.js';
import type { Incoming } from '../../streams/stages/incoming.js';
import { newTestScheduler } from '../marbles/harness.js';
import { call, incoming, stageServer } from './stage-fixture.js';

describe('classifyEnvelope', () => {
  test('requests, notifications, responses, drops and invalid messages, each with what it earns', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const kinds = cold('-a-b-c-d-e|', {
        a: incoming(call(1)),
        b: incoming({ jsonrpc: '2.0', method: 'notifications/initialized' }),
        c: incoming({ jsonrpc: '2.0', id: 7, result: {} }),
        d: incoming({ jsonrpc: '1.0', method: 'x' }),
        e: incoming([call(2)]),
      }).pipe(
        classifyEnvelope(core),
        map((i: Incoming) => (i.classified!.kind === 'invalid' ? `invalid ${(i.classified as { reply: { error: { code: number } } }).reply.error.code}` : i.classified!.kind)),
      );
      expectObservable(kinds).toBe('-a-b-c-d-e|', { a: 'request', b: 'notification', c: 'response', d: 'drop', e: 'invalid -32600' });
    });
  });

  test('a message whose reading throws is an internal error with id null, logged, and the stream goes on', () => {
    const ts = newTestScheduler();
    const logged: unknown[] = [];
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts, { logger: { error: (o: unknown) => logged.push(o), warn() {}, info() {}, debug() {} } as never });
      const hostile = new Proxy({}, { has: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
      const out = cold('-a-b|', { a: incoming(hostile), b: incoming(call(2)) }).pipe(
        classifyEnvelope(core),
        map((i: Incoming) => i.classified),
      );
      expectObservable(out).toBe('-a-b|', {
        a: { kind: 'invalid', reply: { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error: the server failed while handling this request' } } },
        b: { kind: 'request', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
      });
    });
    expect(logged).toHaveLength(1);
  });
});
