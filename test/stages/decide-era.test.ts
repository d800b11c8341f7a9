import { map } from 'rxjs';
import { describe, test } from 'vitest';
import type { Decided } from '../../lib/protocol/classified.js';
import { classifyEnvelope } from '../../streams/stages/classify-envelope.js';
import { decideEra } from '../../streams/stages/decide-era.js';
import type { Incoming } from '../../streams/stages/incoming.js';
import { modernRpc } from '../era/modern-helpers.js';
import { newTestScheduler } from '../marbles/harness.js';
import { init, incoming, stageServer, stdioOrigin } from './stage-fixture.js';

function summary(decided: Decided): string {
  if (decided.kind === 'request') return `${decided.method} ${decided.era}`;
  if (decided.kind === 'invalid') return `invalid ${(decided.reply as { error: { code: number } }).error.code}`;
  return decided.kind;
}

describe('decideEra', () => {
  test('per connection: a discover probe pins nothing, initialize pins legacy, a modern claim after that is -32600', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = stdioOrigin();
      const out = cold('-a-b-c|', {
        a: incoming(modernRpc(1, 'server/discover'), origin),
        b: incoming(init(2), origin),
        c: incoming(modernRpc(3, 'tools/list'), origin),
      }).pipe(
        classifyEnvelope(core),
        decideEra(core),
        map((i: Incoming) => summary(i.decided!)),
      );
      expectObservable(out).toBe('-a-b-c|', { a: 'server/discover modern', b: 'initialize legacy', c: 'invalid -32600' });
    });
  });

  test('per connection: a modern claim pins modern, and a claim-less initialize after it is -32022', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = stdioOrigin();
      const out = cold('-a-b|', { a: incoming(modernRpc(1, 'tools/list'), origin), b: incoming(init(2), origin) }).pipe(
        classifyEnvelope(core),
        decideEra(core),
        map((i: Incoming) => summary(i.decided!)),
      );
      expectObservable(out).toBe('-a-b|', { a: 'tools/list modern', b: 'invalid -32022' });
    });
  });

  test('per message (no decision on the origin): each request by its own claim; non-requests pass as they are', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const { eraDecision: _pinned, ...perMessage } = stdioOrigin();
      const out = cold('-a-b-c|', {
        a: incoming(modernRpc(1, 'tools/list'), perMessage),
        b: incoming({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, perMessage),
        c: incoming({ jsonrpc: '2.0', method: 'notifications/initialized' }, perMessage),
      }).pipe(
        classifyEnvelope(core),
        decideEra(core),
        map((i: Incoming) => summary(i.decided!)),
      );
      expectObservable(out).toBe('-a-b-c|', { a: 'tools/list modern', b: 'tools/list legacy', c: 'notification' });
    });
  });
});
