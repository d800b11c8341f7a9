/**
 * A connection's exit frees the approval tickets it holds: synchronously
 * through a ledger's dropHolderNow when it has one (the in-memory ledger),
 * else by subscribing to dropHolder (a cluster store). After close, exits
 * ask the ledger nothing.
 */
import { describe, expect, test } from 'vitest';
import { NEVER, Subject, defer, of } from 'rxjs';
import { createServer } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import type { ApprovalLedger } from '../../lib/ports/approval-ledger.js';

function spyLedger(withNow: boolean) {
  const calls: string[] = [];
  const ledger: ApprovalLedger = {
    admit: () => NEVER,
    take: () => NEVER,
    reissue: () => NEVER,
    dropHolder: (holder) =>
      defer(() => {
        calls.push(`dropHolder ${holder}`);
        return of(0);
      }),
    ...(withNow ? { dropHolderNow: (holder: string) => (calls.push(`dropHolderNow ${holder}`), 0) } : {}),
  };
  return { ledger, calls };
}

describe('tickets on a connection exit', () => {
  test.each([
    ['a ledger with dropHolderNow is asked at once', true, ['dropHolderNow c1']],
    ['a ledger without it has dropHolder subscribed', false, ['dropHolder c1']],
  ])('%s', (_what, withNow, expected) => {
    const { ledger, calls } = spyLedger(withNow);
    const server = createServer({ logger: silentLogger(), approvalLedger: () => ledger });
    const connection = server.connect('c1', new Subject<unknown>(), { transport: 'memory' }).subscribe();
    expect(calls).toEqual([]);
    connection.unsubscribe();
    expect(calls).toEqual(expected);
  });

  test("a modern HTTP POST's own connection (serveOne) is dropped as a holder on its end too, exactly once", () => {
    const { ledger, calls } = spyLedger(true);
    const server = createServer({ logger: silentLogger(), approvalLedger: () => ledger });
    const end = server.serveOne('post-1', { jsonrpc: '2.0', method: 'notifications/initialized' }, { transport: 'http', peer: 'addr:x' }, () => {});
    end();
    expect(calls).toEqual(['dropHolderNow post-1']);
  });

  test('after close, an exit asks the ledger nothing', () => {
    const { ledger, calls } = spyLedger(true);
    const server = createServer({ logger: silentLogger(), approvalLedger: () => ledger });
    const connection = server.connect('c1', new Subject<unknown>(), { transport: 'memory' }).subscribe();
    server.close();
    connection.unsubscribe();
    expect(calls).toEqual([]);
  });
});
