import { Observable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import type { JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { replyEach } from '../../streams/stages/reply-each.js';
import type { Encoded as Routed } from '../../streams/stages/encode.js';
import { newTestScheduler } from '../marbles/harness.js';

const r = (id: number): JsonRpcResponse => ({ jsonrpc: '2.0', id, result: {} });

describe('replyEach', () => {
  test("'drain': a reply now goes straight out, each stream's reply when it comes, null nowhere; completes after the last", () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const b = cold<JsonRpcResponse | null>('----b|', { b: r(2) });
      const c = cold<JsonRpcResponse | null>('--c|', { c: r(3) });
      const n = cold<JsonRpcResponse | null>('-n|', { n: null });
      const routed = cold<Routed>('-a-B--C-N|', { a: r(1), B: b, C: c, N: n });
      expectObservable(routed.pipe(replyEach('drain', () => undefined))).toBe('-a-----bc-|', { a: r(1), b: r(2), c: r(3) });
    });
  });

  test("'cancel': the source's end (complete or error) ends every call in flight at once, and completes", () => {
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold<JsonRpcResponse | null>('------s|', { s: r(2) });
      const routed = cold<Routed>('-a-S-|', { a: r(1), S: slow });
      expectObservable(routed.pipe(replyEach('cancel', () => undefined))).toBe('-a---|', { a: r(1) });
      expectSubscriptions(slow.subscriptions).toBe('---^-!');
      const failing = cold<JsonRpcResponse | null>('------s|', { s: r(3) });
      const broken = cold<Routed>('-F-#', { F: failing });
      expectObservable(broken.pipe(replyEach('cancel', () => undefined))).toBe('---|');
      expectSubscriptions(failing.subscriptions).toBe('-^-!');
    });
  });

  test('unsubscribing cancels every call in flight: no late reply', () => {
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold<JsonRpcResponse | null>('-----s|', { s: r(2) });
      const routed = cold<Routed>('-S------', { S: slow });
      expectObservable(routed.pipe(replyEach('cancel', () => undefined)), '^--!').toBe('---');
      expectSubscriptions(slow.subscriptions).toBe('-^-!');
    });
  });

  test('a call that fails inside its stream is reported and sends nothing; the others go on', () => {
    const failures: unknown[] = [];
    newTestScheduler().run(({ cold, expectObservable }) => {
      const bad = cold<JsonRpcResponse | null>('-#', undefined, new Error('bug'));
      const good = cold<JsonRpcResponse | null>('--g|', { g: r(2) });
      const routed = cold<Routed>('-B-G|', { B: bad, G: good });
      expectObservable(routed.pipe(replyEach('drain', (error) => failures.push(error)))).toBe('-----g|', { g: r(2) });
    });
    expect(failures).toEqual([new Error('bug')]);
  });

  test('a stream that answers while being opened needs no bookkeeping, and its reply still goes out', () => {
    const synchronous = new Observable<JsonRpcResponse | null>((subscriber) => {
      subscriber.next(r(9));
      subscriber.complete();
    });
    const seen: unknown[] = [];
    new Observable<Routed>((subscriber) => {
      subscriber.next(synchronous);
      subscriber.complete();
    })
      .pipe(replyEach('drain', () => undefined))
      .subscribe({ next: (reply) => seen.push(reply), complete: () => seen.push('done') });
    expect(seen).toEqual([r(9), 'done']);
  });
});

describe('replyEach with a grace period (a connection whose peer stopped sending)', () => {
  test('the calls in flight answer within the grace; the one still running at its end is cancelled; starting runs first', () => {
    const ts = newTestScheduler();
    const started: number[] = [];
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const quick = cold<JsonRpcResponse | null>('---q|', { q: r(2) });
      const slow = cold<JsonRpcResponse | null>('--------s|', { s: r(3) });
      const routed = cold<Routed>('-QS|', { Q: quick, S: slow });
      const grace = { ms: 5, scheduler: ts, starting: () => started.push(ts.now()) };
      expectObservable(routed.pipe(replyEach(grace, () => undefined))).toBe('----q---|', { q: r(2) });
      expectSubscriptions(slow.subscriptions).toBe('--^-----!');
    });
    expect(started).toEqual([3]);
  });

  test('with nothing in flight the result completes at once; a failing source cancels at once, grace or not', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const grace = { ms: 5, scheduler: ts, starting: () => undefined };
      expectObservable(cold<Routed>('-a|', { a: r(1) }).pipe(replyEach(grace, () => undefined))).toBe('-a|', { a: r(1) });
      const slow = cold<JsonRpcResponse | null>('--------s|', { s: r(3) });
      expectObservable(cold<Routed>('-S#', { S: slow }).pipe(replyEach(grace, () => undefined))).toBe('--|');
      expectSubscriptions(slow.subscriptions).toBe('-^!');
    });
  });

  test('the last call answering ends the grace early', () => {
    const ts = newTestScheduler();
    ts.run(({ cold, expectObservable }) => {
      const call = cold<JsonRpcResponse | null>('---c|', { c: r(4) });
      const grace = { ms: 50, scheduler: ts, starting: () => undefined };
      expectObservable(cold<Routed>('-C|', { C: call }).pipe(replyEach(grace, () => undefined))).toBe('----c|', { c: r(4) });
    });
  });
});
