import { describe, expect, test } from 'vitest';
import { perMessage } from '../../streams/stages/incoming.js';
import { newTestScheduler } from '../marbles/harness.js';

describe('perMessage', () => {
  test('maps each value, drops what its step returns undefined for, passes the end through', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const thrown: unknown[] = [];
      const double = perMessage((n: number) => (n === 2 ? undefined : n * 10), (error) => thrown.push(error));
      expectObservable(cold('-a-b-c|', { a: 1, b: 2, c: 3 }).pipe(double)).toBe('-x---y|', { x: 10, y: 30 });
      expect(thrown).toEqual([]);
    });
  });

  test('a step that throws is reported and its value dropped; the stream goes on', () => {
    newTestScheduler().run(({ cold, expectObservable }) => {
      const thrown: unknown[] = [];
      const failing = perMessage(
        (n: number) => {
          if (n === 2) throw new Error('bad');
          return n;
        },
        (error) => thrown.push((error as Error).message),
      );
      expectObservable(cold('-a-b-c|', { a: 1, b: 2, c: 3 }).pipe(failing)).toBe('-a---c|', { a: 1, c: 3 });
    });
  });

  test('an error of the source passes through; unsubscribing unsubscribes the source', () => {
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-#', { a: 1 });
      expectObservable(source.pipe(perMessage((n: number) => n, () => undefined))).toBe('-a-#', { a: 1 });
      const long = cold('-a-b-c-d', { a: 1, b: 2, c: 3, d: 4 });
      expectObservable(long.pipe(perMessage((n: number) => n, () => undefined)), '^--!').toBe('-a-', { a: 1 });
      expectSubscriptions(long.subscriptions).toBe('^--!');
    });
  });

  test('stages in a row fuse: one subscription of the source, each step in order, each throw reported by its own stage', () => {
    const first: unknown[] = [];
    const second: unknown[] = [];
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-c-d|', { a: 1, b: 2, c: 3, d: 4 });
      const out = source.pipe(
        perMessage(
          (n: number) => {
            if (n === 3) throw new Error('first');
            return n === 2 ? undefined : n * 10;
          },
          (error) => first.push((error as Error).message),
        ),
        perMessage(
          (n: number) => {
            if (n === 40) throw new Error('second');
            return `${n}!`;
          },
          (error) => second.push((error as Error).message),
        ),
        perMessage((text: string) => text.toUpperCase(), () => undefined),
      );
      expectObservable(out).toBe('-x------|', { x: '10!' });
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
    expect(first).toEqual(['first']);
    expect(second).toEqual(['second']);
  });

  test('a fused stage subscribed twice reads its source twice, each on its own', () => {
    newTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a|', { a: 1 });
      const twice = source.pipe(
        perMessage((n: number) => n + 1, () => undefined),
        perMessage((n: number) => n * 2, () => undefined),
      );
      expectObservable(twice).toBe('-x|', { x: 4 });
      expectObservable(twice).toBe('-x|', { x: 4 });
      expectSubscriptions(source.subscriptions).toBe(['^-!', '^-!']);
    });
  });
});
