import { map } from 'rxjs';
import { describe, test } from 'vitest';
import { AuthenticatedMessage } from '../../lib/auth/authenticated.js';
import { makePrincipal } from '../../lib/auth/principal.js';
import { authenticate } from '../../streams/stages/authenticate.js';
import type { Incoming } from '../../streams/stages/incoming.js';
import { newTestScheduler } from '../marbles/harness.js';
import { stageServer, stdioOrigin } from './stage-fixture.js';

const alice = makePrincipal({ issuer: 'https://as.example', subject: 'alice' });
const aliceAgain = makePrincipal({ issuer: 'https://as.example', subject: 'alice', claims: { fresh: true } });
const bob = makePrincipal({ issuer: 'https://as.example', subject: 'bob' });

describe('authenticate', () => {
  test("a plain message is the connection's; an authenticated one runs under its own principal of the same key; another key is dropped", () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      const origin = { ...stdioOrigin(), principal: alice };
      const seen = cold('-a-b-c|', {
        a: { m: 1 },
        b: new AuthenticatedMessage({ m: 2 }, aliceAgain),
        c: new AuthenticatedMessage({ m: 3 }, bob),
      }).pipe(authenticate(core, origin));
      const shape = (i: Incoming) => ({ message: i.message, principal: i.origin.principal, connId: i.origin.connId });
      expectObservable(seen.pipe(map(shape))).toBe('-a-b--|', {
        a: { message: { m: 1 }, principal: alice, connId: 'c1' },
        b: { message: { m: 2 }, principal: aliceAgain, connId: 'c1' },
      });
    });
  });

  test('an authenticated message on a connection without a principal is dropped', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const { core } = stageServer(ts);
      expectObservable(cold('-a|', { a: new AuthenticatedMessage({ m: 1 }, alice) }).pipe(authenticate(core, stdioOrigin()))).toBe('--|');
    });
  });
});
