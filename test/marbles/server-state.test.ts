/**
 * The server's state as Observables, on a virtual clock: `stats$` samples
 * `stats()` every `statsIntervalMs` and emits only what changed;
 * `connections$` and `parked$` emit the current list at subscription and
 * then once per tick in which it changed.
 */
import { map, NEVER, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { askingServer, connectMarbles, elicitationAnswer, initialize, newTestScheduler, record, toolCall } from './harness.js';

describe('server.stats$', () => {
  test('the stats at subscription, then a sample every statsIntervalMs, emitted only when a count changed', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({ name: 'slow', handler: () => timer(15, ts).pipe(map(() => 'done')) });
      const server = createServer({ registry, scheduler: ts, statsIntervalMs: 10 });
      record(server, 'A', hot('---c', { c: toolCall(1, 'slow') }), ts);
      // In flight from 3 to 18: seen by the samples at 10 (1) and 20 (0); 30 and 40 change nothing.
      expectObservable(server.stats$.pipe(map((stats) => `${stats.connections}/${stats.inFlight}`)), '^ 45ms !').toBe('a 9ms b 9ms c', {
        a: '1/0',
        b: '1/1',
        c: '1/0',
      });
    });
  });

  test('a change inside one period is not seen: sampled, never pushed', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const registry = new Registry().registerTool({ name: 'quick', handler: () => timer(3, ts).pipe(map(() => 'done')) });
      const server = createServer({ registry, scheduler: ts, statsIntervalMs: 10 });
      record(server, 'A', hot('--c', { c: toolCall(1, 'quick') }), ts);
      expectObservable(server.stats$.pipe(map((stats) => stats.inFlight)), '^ 30ms !').toBe('a', { a: 0 });
    });
  });

  test('statsIntervalMs must be a positive integer', () => {
    expect(() => createServer({ statsIntervalMs: 0 })).toThrow('statsIntervalMs must be a positive integer');
  });
});

describe('server.connections$', () => {
  test('the list at subscription, then one list per tick in which connections arrived or left', () => {
    const ts = newTestScheduler();
    ts.run(({ expectObservable }) => {
      const server = createServer({ scheduler: ts });
      const a = connectMarbles(server, 'A', NEVER);
      const b = connectMarbles(server, 'B', NEVER);
      const c = connectMarbles(server, 'C', NEVER);
      ts.schedule(() => {
        const subscriptions = [a.subscribe(), b.subscribe()];
        ts.schedule(() => subscriptions[0]!.unsubscribe(), 3);
        ts.schedule(() => subscriptions[1]!.unsubscribe(), 5);
      }, 2);
      ts.schedule(() => c.subscribe(), 5);
      const ids = server.connections$.pipe(map((list) => list.map((info) => `${info.connId}:${info.transport}`).join(',')));
      // A leaving and C arriving in frame 5 are one list.
      expectObservable(ids, '^ 10ms !').toBe('x-y--z-w', { x: '', y: 'A:memory,B:memory', z: 'B:memory,C:memory', w: 'C:memory' });
    });
  });
});

describe('server.parked$', () => {
  test('a parked approval appears with its tool, connection and time, and goes when it is answered', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = askingServer(ts, [{ name: 'guarded', handler: () => 'ran' }]);
      const recorder = record(
        server,
        'A',
        hot('i-c---a', { i: initialize(0), c: toolCall(1, 'guarded'), a: () => elicitationAnswer(recorder.elicitationId(), 'approve') }),
        ts,
      );
      const parked = server.parked$.pipe(map((list) => list.map((p) => `${p.tool}@${p.connId}/${p.peer}/${p.since}`).join(',')));
      expectObservable(parked, '^ 10ms !').toBe('x-y---x', { x: '', y: 'guarded@A/A/2' });
    });
  });
});
