/**
 * The two parking caps on a virtual clock. Per connection: past
 * maxParkedElicitations an ASK is denied at once. Across the server: on a
 * full server an ASK from a connection holding fewer parked calls than the
 * fullest one closes that connection's oldest call (deny "too many
 * elicitations pending on this server", in the newcomer's frame) and parks in
 * its place; the evicted call's timer never fires. Any other ASK on a full
 * server gets that deny itself.
 */
import { describe, expect, test } from 'vitest';
import type { TestScheduler } from 'rxjs/testing';
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

const ELICIT_TIMEOUT = 100;
const FULL_SERVER = 'too many elicitations pending on this server';
const FULL_CONNECTION = 'too many elicitations pending';
const initialized = expect.objectContaining({ id: 0, result: expect.anything() });

function parkingServer(ts: TestScheduler, log: ToolLog, caps: { maxParkedElicitations: number; maxParkedElicitationsTotal: number }) {
  return askingServer(ts, [sleepTool('guarded', 5, ts, log)], { elicitationTimeoutMs: ELICIT_TIMEOUT, ...caps });
}

describe('parking caps on a virtual clock', () => {
  test("a newcomer on a full server evicts the fullest connection's oldest call; its timer never fires", () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const parked: Array<[number, number]> = [];
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 2, maxParkedElicitationsTotal: 2 });
      // A parks a1 (3) and a2 (5): the server is full. B's call at 9 evicts a1.
      // At 12 A holds 1 and B holds 1: A is not behind anyone, so its ASK is denied itself.
      const a = hot('-i-a-b------c', {
        i: initialize(0),
        a: toolCall('a1', 'guarded'),
        b: toolCall('a2', 'guarded'),
        c: toolCall('a3', 'guarded'),
      });
      const b = hot('-i-------x', { i: initialize(0), x: toolCall('b1', 'guarded') });
      ts.schedule(() => parked.push([ts.now(), server.stats().parked]), 8);
      ts.schedule(() => parked.push([ts.now(), server.stats().parked]), 10);
      ts.schedule(() => parked.push([ts.now(), server.stats().parked]), 200);
      // a2 times out at 105, b1 at 109; a1's timer (due at 103) is gone with it.
      expectObservable(connectMarbles(server, 'A', a)).toBe('-n-e-e---d--x 92ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('a1', 'guarded', FULL_SERVER),
        x: deniedAsk('a3', 'guarded', FULL_SERVER),
        t: deniedAsk('a2', 'guarded', 'timed out'),
      });
      expectObservable(connectMarbles(server, 'B', b)).toBe('-n-------e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('b1', 'guarded', 'timed out'),
      });
    });
    expect(parked).toEqual([
      [8, 2],
      [10, 2],
      [200, 0],
    ]);
    expect(log.started).toEqual([]);
  });

  test('an answer to an evicted call is ignored: the newcomer keeps its place and the evicted tool never runs', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const idsA: string[] = [];
    const idsB: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 1, maxParkedElicitationsTotal: 1 });
      const a = hot('-i-a---l', { i: initialize(0), a: toolCall('a1', 'guarded'), l: () => elicitationAnswer(idsA[0], 'approve') });
      const b = hot('-i---x---y', { i: initialize(0), x: toolCall('b1', 'guarded'), y: () => elicitationAnswer(idsB[0], 'approve') });
      // A's only call is evicted by B at 5 (A holds 1, B holds 0). A's approval at 7 names a closed call.
      expectObservable(connectMarbles(server, 'A', a).pipe(collectElicitationIds(idsA))).toBe('-n-e-d', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('a1', 'guarded', FULL_SERVER),
      });
      // B's approval at 9 runs the 5 ms tool: done at 14.
      expectObservable(connectMarbles(server, 'B', b).pipe(collectElicitationIds(idsB))).toBe('-n---e 8ms r', {
        n: initialized,
        e: elicitationCreate(),
        r: textResult('b1', 'done'),
      });
    });
    expect(log).toEqual({ started: [9], finished: [14], aborted: [] });
  });

  test('past maxParkedElicitations a connection is denied at once; its parked call is untouched', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 1, maxParkedElicitationsTotal: 4 });
      const a = hot('-i-ab', { i: initialize(0), a: toolCall(1, 'guarded'), b: toolCall(2, 'guarded') });
      expectObservable(connectMarbles(server, 'A', a)).toBe('-n-ed 98ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk(2, 'guarded', FULL_CONNECTION),
        t: deniedAsk(1, 'guarded', 'timed out'),
      });
    });
  });

  test('eviction takes the oldest call of the connection holding the most, not the oldest call overall', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = parkingServer(ts, log, { maxParkedElicitations: 2, maxParkedElicitationsTotal: 3 });
      // A parks a1 at 2 (the oldest overall); B parks b1 at 3 and b2 at 4: full, B holds the most.
      // C's call at 6 evicts b1, not a1.
      const a = hot('i-a', { i: initialize(0), a: toolCall('a1', 'guarded') });
      const b = hot('i--bc', { i: initialize(0), b: toolCall('b1', 'guarded'), c: toolCall('b2', 'guarded') });
      const c = hot('i-----x', { i: initialize(0), x: toolCall('c1', 'guarded') });
      expectObservable(connectMarbles(server, 'A', a)).toBe('n-e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('a1', 'guarded', 'timed out'),
      });
      expectObservable(connectMarbles(server, 'B', b)).toBe('n--ee-d 97ms t', {
        n: initialized,
        e: elicitationCreate(),
        d: deniedAsk('b1', 'guarded', FULL_SERVER),
        t: deniedAsk('b2', 'guarded', 'timed out'),
      });
      expectObservable(connectMarbles(server, 'C', c)).toBe('n-----e 99ms t', {
        n: initialized,
        e: elicitationCreate(),
        t: deniedAsk('c1', 'guarded', 'timed out'),
      });
    });
  });
});
