/**
 * Cancellation on a virtual clock. notifications/cancelled, cancel(ref), a
 * handleMessage timeout and a caller's AbortSignal are one mechanism: the
 * call's Observable is unsubscribed, the handler's signal aborts in that
 * frame, and no reply follows. A cancel that arrives after the reply changes
 * nothing: the reply stands, exactly one.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, test } from 'vitest';
import { CallerGoneError, type PendingRequest } from '../../lib/index.js';
import type { TestScheduler } from 'rxjs/testing';
import {
  askingServer,
  cancelled,
  collectElicitationIds,
  connectMarbles,
  elicitationAnswer,
  elicitationIdOf,
  elicitationCreate,
  initialize,
  newTestScheduler,
  newToolLog,
  sleepTool,
  textResult,
  toolCall,
  type Msg,
  type ToolLog,
} from './harness.js';

const WORK_MS = 10;

function workServer(ts: TestScheduler, log: ToolLog) {
  return askingServer(ts, [sleepTool('work', WORK_MS, ts, log), sleepTool('guarded', WORK_MS, ts, log)], { allowed: ['work'] });
}

describe('notifications/cancelled racing completion', () => {
  test('arriving one frame before the handler completes: no reply, and the handler is aborted', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = workServer(ts, log);
      // The call at 1 would answer at 11; the cancel arrives at 10.
      const inbound = hot('-c 8ms x', { c: toolCall(1, 'work'), x: cancelled(1) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('');
    });
    expect(log).toEqual({ started: [1], finished: [], aborted: [1 + WORK_MS - 1] });
  });

  test('arriving after the reply: the reply stands, exactly one, and nothing is aborted', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = workServer(ts, log);
      const inbound = hot('-c 10ms x', { c: toolCall(1, 'work'), x: cancelled(1) });
      expectObservable(connectMarbles(server, 'c1', inbound)).toBe('- 10ms r', { r: textResult(1, 'done') });
    });
    expect(log).toEqual({ started: [1], finished: [1 + WORK_MS], aborted: [] });
  });

  test('a cancel names one request on one connection: another id, or the same id elsewhere, is untouched', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    ts.run(({ hot, expectObservable }) => {
      const server = workServer(ts, log);
      const a = hot('-cd--x', { c: toolCall(1, 'work'), d: toolCall(2, 'work'), x: cancelled(1) });
      const b = hot('-c---x', { c: toolCall(1, 'work'), x: cancelled(99) });
      expectObservable(connectMarbles(server, 'A', a)).toBe('- 11ms r', { r: textResult(2, 'done') });
      expectObservable(connectMarbles(server, 'B', b)).toBe('- 10ms r', { r: textResult(1, 'done') });
    });
    expect(log.aborted).toEqual([5]);
    expect(log.finished).toEqual([11, 12]);
  });

  test('a parked call cancelled before the answer: no reply, and the later approval runs nothing', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    ts.run(({ hot, expectObservable }) => {
      const server = workServer(ts, log);
      const inbound = hot('-i-c-x-a', {
        i: initialize(0),
        c: toolCall(1, 'guarded'),
        x: cancelled(1),
        a: () => elicitationAnswer(ids[0], 'approve'),
      });
      ts.schedule(() => expect(server.stats().parked).toBe(1), 4);
      ts.schedule(() => expect(server.stats().parked).toBe(0), 6);
      const outbound = connectMarbles(server, 'c1', inbound).pipe(collectElicitationIds(ids));
      expectObservable(outbound).toBe('-n-e', {
        n: expect.objectContaining({ id: 0 }),
        e: elicitationCreate(),
      });
    });
    expect(log.started).toEqual([]);
  });
});

describe('request() and cancel(ref)', () => {
  test('cancel(ref) at a virtual time aborts the handler in that frame and settles the reply with null', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let pending!: PendingRequest;
    const outstanding: number[] = [];
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => {
        pending = server.request(toolCall(1, 'work'), 'c1');
        outstanding.push(server.stats().outstandingRequests);
      }, 2);
      ts.schedule(() => {
        server.cancel(pending.ref);
        outstanding.push(server.stats().outstandingRequests, server.stats().inFlight);
      }, 6);
    });
    expect(log).toEqual({ started: [2], finished: [], aborted: [6] });
    expect(outstanding).toEqual([1, 0, 0]);
    await expect(pending.reply).resolves.toBeNull();
  });

  test('cancel(ref) after the reply changes nothing', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let pending!: PendingRequest;
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => (pending = server.request(toolCall(1, 'work'), 'c1')), 2);
      ts.schedule(() => server.cancel(pending.ref), 2 + WORK_MS + 1);
    });
    expect(log).toEqual({ started: [2], finished: [2 + WORK_MS], aborted: [] });
    await expect(pending.reply).resolves.toEqual(textResult(1, 'done'));
  });

  test('cancel(ref) reaches a parked call: dropped with no answer, a later approval runs nothing', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    const pushed: Msg[] = [];
    let pending!: PendingRequest;
    let lateAnswer!: Promise<unknown>;
    ts.run(() => {
      const server = workServer(ts, log);
      server.subscribe((m) => {
        pushed.push(m as unknown as Msg);
        const id = elicitationIdOf(m);
        if (id !== undefined) ids.push(id);
      }, 'c1');
      void server.request(initialize(0), 'c1');
      ts.schedule(() => (pending = server.request(toolCall(1, 'guarded'), 'c1')), 1);
      ts.schedule(() => {
        expect(server.stats()).toMatchObject({ parked: 1, outstandingRequests: 1 });
        server.cancel(pending.ref);
        expect(server.stats()).toMatchObject({ parked: 0, outstandingRequests: 0 });
      }, 3);
      ts.schedule(() => (lateAnswer = server.handleMessage(elicitationAnswer(ids[0], 'approve'), { connId: 'c1' })), 4);
    });
    await expect(pending.reply).resolves.toBeNull();
    await expect(lateAnswer).resolves.toBeNull();
    expect(log.started).toEqual([]);
    expect(pushed.map((m) => m.method)).toEqual(['elicitation/create']);
  });

  test("an approved call runs under the original ref: cancel(ref) aborts the running tool", async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const ids: string[] = [];
    let pending!: PendingRequest;
    ts.run(() => {
      const server = workServer(ts, log);
      server.subscribe((m) => {
        const id = elicitationIdOf(m);
        if (id !== undefined) ids.push(id);
      }, 'c1');
      void server.request(initialize(0), 'c1');
      ts.schedule(() => (pending = server.request(toolCall(1, 'guarded'), 'c1')), 1);
      ts.schedule(() => void server.handleMessage(elicitationAnswer(ids[0], 'approve'), { connId: 'c1' }), 3);
      ts.schedule(() => server.cancel(pending.ref), 5);
      ts.schedule(() => expect(server.stats()).toMatchObject({ inFlight: 0, parked: 0, outstandingRequests: 0 }), 6);
    });
    expect(log).toEqual({ started: [3], finished: [], aborted: [5] });
    await expect(pending.reply).resolves.toBeNull();
  });

  test('a request signal aborting at a virtual time cancels the request and leaves no listener behind', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const controller = new AbortController();
    const replies: PendingRequest[] = [];
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => replies.push(server.request(toolCall(1, 'work'), 'c1', { signal: controller.signal })), 1);
      ts.schedule(() => replies.push(server.request(toolCall(2, 'work'), 'c1', { signal: controller.signal })), 2);
      // The first is cancelled explicitly; the signal then ends the second.
      ts.schedule(() => server.cancel(replies[0]!.ref), 3);
      ts.schedule(() => controller.abort(), 4);
      ts.schedule(() => expect(server.stats()).toMatchObject({ inFlight: 0, outstandingRequests: 0 }), 5);
    });
    expect(log).toEqual({ started: [1, 2], finished: [], aborted: [3, 4] });
    await expect(replies[0]!.reply).resolves.toBeNull();
    await expect(replies[1]!.reply).resolves.toBeNull();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('cancel(ref) removes its listener from the caller signal (a long-lived signal does not collect them)', () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const controller = new AbortController();
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => {
        for (let id = 1; id <= 5; id++) server.cancel(server.request(toolCall(id, 'work'), 'c1', { signal: controller.signal }).ref);
      }, 1);
    });
    expect(log.aborted).toEqual([1, 1, 1, 1, 1]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('handleMessage({timeoutMs}) and handleMessage({signal})', () => {
  test('a finite timeout expiring cancels the worker in that frame and rejects with CallerGoneError', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let reply!: Promise<unknown>;
    const inFlight: number[] = [];
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => {
        reply = server.handleMessage(toolCall(1, 'work'), { connId: 'c1', timeoutMs: 4 });
        inFlight.push(server.stats().inFlight);
      }, 1);
      ts.schedule(() => inFlight.push(server.stats().inFlight), 6);
    });
    expect(log).toEqual({ started: [1], finished: [], aborted: [5] });
    expect(inFlight).toEqual([1, 0]);
    await expect(reply).rejects.toBeInstanceOf(CallerGoneError);
  });

  test('a timeout longer than the work resolves with the reply, and nothing is aborted', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    let reply!: Promise<unknown>;
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => (reply = server.handleMessage(toolCall(1, 'work'), { connId: 'c1', timeoutMs: WORK_MS + 1 })), 1);
    });
    expect(log.aborted).toEqual([]);
    await expect(reply).resolves.toEqual(textResult(1, 'done'));
  });

  test('the caller signal aborting mid-call cancels the worker in that frame and rejects with CallerGoneError', async () => {
    const ts = newTestScheduler();
    const log = newToolLog();
    const controller = new AbortController();
    let reply!: Promise<unknown>;
    ts.run(() => {
      const server = workServer(ts, log);
      ts.schedule(() => (reply = server.handleMessage(toolCall(1, 'work'), { connId: 'c1', signal: controller.signal })), 1);
      ts.schedule(() => controller.abort(), 3);
    });
    expect(log).toEqual({ started: [1], finished: [], aborted: [3] });
    await expect(reply).rejects.toBeInstanceOf(CallerGoneError);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});
