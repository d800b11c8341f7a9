/**
 * Approved calls run through the same admission as any other: a parked call
 * holds no worker, so approving it when the server is full answers
 * "Error: server_busy" in the approval's frame and the tool never starts;
 * approving once a slot is free runs it.
 */
import { describe, expect, test } from 'vitest';
import type { TestScheduler } from 'rxjs/testing';
import {
  askingServer,
  collectElicitationIds,
  connectMarbles,
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

const initialized = expect.objectContaining({ id: 0, result: expect.anything() });

function fullableServer(ts: TestScheduler, guarded: ToolLog, work: ToolLog, maxInFlight: number, maxInFlightPerConnection: number) {
  const tools = [sleepTool('guarded', 5, ts, guarded), sleepTool('work', 100, ts, work)];
  return askingServer(ts, tools, { allowed: ['work'], maxInFlight, maxInFlightPerConnection });
}

describe('approved calls run through admission', () => {
  test('an approval while another connection holds the only slot is "Error: server_busy"; the tool never starts', () => {
    const ts = newTestScheduler();
    const guarded = newToolLog();
    const work = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = fullableServer(ts, guarded, work, 1, 1);
      // A parks at 3 (the authorizer's worker is released when it parks); B takes the slot at 4; A approves at 5.
      const a = hot('-i-c-a', { i: initialize(0), c: toolCall(1, 'guarded'), a: () => elicitationAnswer(ids[0], 'approve') });
      const b = hot('----w', { w: toolCall(2, 'work') });
      ts.schedule(() => expect(server.stats()).toMatchObject({ inFlight: 0, parked: 1 }), 4);
      expectObservable(connectMarbles(server, 'A', a).pipe(collectElicitationIds(ids))).toBe('-n-e-r', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult(1, 'Error: server_busy', true),
      });
      expectObservable(connectMarbles(server, 'B', b)).toBe('---- 100ms r', { r: textResult(2, 'done') });
    });
    expect(guarded.started).toEqual([]);
    expect(work).toEqual({ started: [4], finished: [104], aborted: [] });
  });

  test('the per-connection share counts too: an approval while the same connection is at its share is busy', () => {
    const ts = newTestScheduler();
    const guarded = newToolLog();
    const work = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = fullableServer(ts, guarded, work, 4, 1);
      const a = hot('-i-cwa', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        w: toolCall(2, 'work'),
        a: () => elicitationAnswer(ids[0], 'approve'),
      });
      expectObservable(connectMarbles(server, 'A', a).pipe(collectElicitationIds(ids))).toBe('-n-e-r 98ms d', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult(1, 'Error: server_busy', true),
        d: textResult(2, 'done'),
      });
    });
    expect(guarded.started).toEqual([]);
  });

  test('an approval once the slot is free again runs the tool', () => {
    const ts = newTestScheduler();
    const guarded = newToolLog();
    const work = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = fullableServer(ts, guarded, work, 1, 1);
      // B's work ends at 104; A approves at 105.
      const a = hot('-i-c 101ms a', { i: initialize(0), c: toolCall(1, 'guarded'), a: () => elicitationAnswer(ids[0], 'approve') });
      const b = hot('----w', { w: toolCall(2, 'work') });
      expectObservable(connectMarbles(server, 'A', a).pipe(collectElicitationIds(ids))).toBe('-n-e 106ms r', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult(1, 'done'),
      });
      expectObservable(connectMarbles(server, 'B', b)).toBe('---- 100ms r', { r: textResult(2, 'done') });
    });
    expect(guarded).toEqual({ started: [105], finished: [110], aborted: [] });
  });
});
