import { describe, expect, test } from 'vitest';
import { EMPTY, Subject, of, throwError } from 'rxjs';
import { attempt, eventualOf, isLater, settleEventual, thenEventual, toObservable } from '../../streams/worker.js';

function settle<T>(value: Parameters<typeof settleEventual<T>>[0]) {
  const seen: Array<['answer', T] | ['failure', unknown]> = [];
  const reading = settleEventual(value, { answer: (v) => seen.push(['answer', v]), failure: (e) => seen.push(['failure', e]) });
  return { seen, cancel: () => reading.cancel() };
}

describe('Eventual', () => {
  test('a plain value is here now; composition stays synchronous', () => {
    const value = thenEventual(eventualOf(2), (n) => (n ?? 0) * 10);
    expect(isLater(value)).toBe(false);
    expect(value).toBe(20);
  });

  test('an Observable answers with its last value, undefined when empty', () => {
    expect(settle(thenEventual(eventualOf(of(1, 2, 3)), (n) => `got ${n}`)).seen).toEqual([['answer', 'got 3']]);
    expect(settle(eventualOf(EMPTY)).seen).toEqual([['answer', undefined]]);
  });

  test('the value filter keeps progress out of the answer', () => {
    const skipped: unknown[] = [];
    const later = eventualOf(of('p1', 'result', 'p2'), (v) => (String(v).startsWith('p') ? (skipped.push(v), false) : true));
    expect(settle(later).seen).toEqual([['answer', 'result']]);
    expect(skipped).toEqual(['p1', 'p2']);
  });

  test('nested Laters settle through, and cancelling reaches the current source', () => {
    const first = new Subject<number>();
    const second = new Subject<number>();
    const value = thenEventual(eventualOf(first), () => eventualOf(second));
    const { seen, cancel } = settle(value);
    first.next(1);
    first.complete();
    expect(second.observed).toBe(true);
    cancel();
    expect(second.observed).toBe(false);
    second.next(2);
    second.complete();
    expect(seen).toEqual([]);
  });

  test('attempt recovers a throw now, an error later, and a throw while reading a later value', async () => {
    const recover = (e: unknown) => `recovered ${(e as Error).message}`;
    expect(
      attempt(() => {
        throw new Error('now');
      }, recover),
    ).toBe('recovered now');
    expect(settle(attempt(() => eventualOf(throwError(() => new Error('later'))), recover)).seen).toEqual([['answer', 'recovered later']]);
    const reading = attempt(
      () =>
        thenEventual(eventualOf(Promise.resolve(1)), () => {
          throw new Error('reading');
        }),
      recover,
    );
    await expect(new Promise((resolve) => settleEventual(reading, { answer: resolve, failure: resolve }))).resolves.toBe('recovered reading');
  });

  test('a failure without recovery reaches onFailure exactly once', () => {
    const boom = new Error('boom');
    expect(settle(eventualOf(throwError(() => boom))).seen).toEqual([['failure', boom]]);
  });

  test('toObservable emits one value and completes', async () => {
    const values: unknown[] = [];
    await new Promise<void>((resolve) => toObservable(eventualOf(Promise.resolve('p'))).subscribe({ next: (v) => values.push(v), complete: resolve }));
    expect(values).toEqual(['p']);
  });
});
