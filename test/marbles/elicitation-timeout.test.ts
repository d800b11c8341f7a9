/**
 * elicitationTimeoutMs on a virtual clock: a parked tools/call is denied
 * with "timed out" at exactly the timeout frame (silence is not
 * consent), and an answer that comes later is ignored: no second reply, no
 * tool run.
 */
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import {
  askingServer,
  collectElicitationIds,
  connectMarbles,
  deniedAsk,
  elicitationAnswer,
  elicitationCreate,
  initialize,
  newTestScheduler,
  newToolLog,
  sleepTool,
  textResult,
  toolCall,
  type ToolLog,
} from './harness.js';

const ELICIT_TIMEOUT = 50;
const initialized = expect.objectContaining({ jsonrpc: '2.0', id: 0, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) });

function guardedServer(ts: TestScheduler, log: ToolLog) {
  return askingServer(ts, [sleepTool('guarded', 10, ts, log)], { elicitationTimeoutMs: ELICIT_TIMEOUT });
}

describe('elicitationTimeoutMs', () => {
  test('a parked call is denied with "timed out" exactly at the timeout, and a late approval is ignored', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    const parked: Array<[number, number]> = [];
    ts.run(({ hot, expectObservable }) => {
      const server = guardedServer(ts, log);
      const inbound = hot('-i-c 60ms l', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        l: () => elicitationAnswer(ids[0], 'approve'),
      });
      ts.schedule(() => parked.push([ts.now(), server.stats().parked]), 3 + ELICIT_TIMEOUT - 1);
      ts.schedule(() => parked.push([ts.now(), server.stats().parked]), 3 + ELICIT_TIMEOUT + 1);
      const outbound = connectMarbles(server, 'c1', inbound).pipe(collectElicitationIds(ids));
      // initialize reply at 1, the prompt at 3, the deny at 3 + 50; nothing after the late answer at 64.
      expectObservable(outbound).toBe('-n-e 49ms d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk(1, 'guarded', 'timed out'),
      });
    });
    expect(ids).toHaveLength(1);
    expect(log.started).toEqual([]);
    expect(parked).toEqual([
      [3 + ELICIT_TIMEOUT - 1, 1],
      [3 + ELICIT_TIMEOUT + 1, 0],
    ]);
  });

  test('an approval one frame before the timeout runs the tool; the timeout then fires nothing', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = guardedServer(ts, log);
      const inbound = hot('-i-c 48ms a', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        a: () => elicitationAnswer(ids[0], 'approve'),
      });
      const outbound = connectMarbles(server, 'c1', inbound).pipe(collectElicitationIds(ids));
      // approved at 52, the 10 ms tool answers at 62; the timer that would have fired at 53 is gone.
      expectObservable(outbound).toBe('-n-e 58ms r', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult(1, 'done'),
      });
    });
    expect(log).toEqual({ started: [52], finished: [62], aborted: [] });
  });

  test('a decline after the timeout is ignored too: one deny, the timeout one', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = guardedServer(ts, log);
      const inbound = hot('-i-c 50ms l', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        l: () => elicitationAnswer(ids[0], 'decline'),
      });
      const outbound = connectMarbles(server, 'c1', inbound).pipe(collectElicitationIds(ids));
      // The timeout (53) and the answer (54) are a frame apart: the answer names a closed call.
      expectObservable(outbound).toBe('-n-e 49ms d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk(1, 'guarded', 'timed out'),
      });
    });
    expect(log.started).toEqual([]);
  });
});
