/**
 * A middleware stage sees who is calling: the principal the transport
 * verified (never one the client wrote), and the fairness key that is the
 * principal's, so per-caller built-ins count an authenticated caller as one
 * caller across all its connections.
 */
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry, type AdmittedCall, type Middleware } from '../../lib/index.js';

const alice = makePrincipal({ kind: 'oauth', issuer: 'https://as.example.com', subject: 'alice', clientId: 'app' });

describe('middleware and the principal', () => {
  test('a stage sees the verified principal and its fairness key; an unauthenticated call has none', () => {
    const seen: AdmittedCall[] = [];
    const record: Middleware = () => (call) => {
      seen.push(call);
      return (reply$) => reply$;
    };
    const server = createServer({
      registry: new Registry().registerTool({ name: 'echo', handler: () => 'ok' }),
      middleware: [record],
    });
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { principal: 'forged' } } });
    const authenticated = new Subject<unknown>();
    server.connect('a', authenticated, { transport: 'memory', principal: alice }).subscribe();
    authenticated.next(call(1));
    const anonymous = new Subject<unknown>();
    server.connect('b', anonymous, { transport: 'memory', peer: 'addr:10.0.0.9' }).subscribe();
    anonymous.next(call(2));
    expect(seen.map((c) => [c.connId, c.principal?.key, c.peer])).toEqual([
      ['a', alice.key, `principal:${alice.key}`],
      ['b', undefined, 'addr:10.0.0.9'],
    ]);
  });
});
