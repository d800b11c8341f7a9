/**
 * TestClock on its own, as an RxJS scheduler: timers run in due order, each
 * at its own time, with the Promises they resolve settled before the next
 * one (what TestScheduler's synchronous flush cannot do); a periodic timer
 * re-queues itself; an unsubscribed timer never runs; and every way of
 * getting stuck (time backwards, two advances at once, nothing left to run,
 * an endless timer) is an error that says so instead of a hang.
 */
import { interval, take, timer } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { TestClock } from '../../testing/index.js';

/** Waits `ms` on `clock` as a handler would, through a Promise. */
const wait = (clock: TestClock, ms: number) => new Promise<void>((resolve) => timer(ms, clock).subscribe(() => resolve()));

describe('TestClock', () => {
  test('async code between timers runs at its own virtual time: each await sees the clock where its timer fired', async () => {
    const clock = new TestClock();
    const seen: string[] = [];
    const worker = async (name: string, steps: number[]) => {
      for (const ms of steps) {
        await wait(clock, ms);
        await Promise.resolve();
        seen.push(`${name}@${clock.now()}`);
      }
    };
    void worker('a', [10, 10, 10]);
    void worker('b', [15, 1]);
    await clock.advance(25);
    expect(seen).toEqual(['a@10', 'b@15', 'b@16', 'a@20']);
    expect(clock.now()).toBe(25);
    await clock.advanceTo(30);
    expect(seen.at(-1)).toBe('a@30');
  });

  test('timers due at the same time run in the order they were scheduled; 0 ms timers run on settle', async () => {
    const clock = new TestClock({ start: 1_000 });
    const order: string[] = [];
    clock.schedule(() => order.push('second'), 5);
    clock.schedule(() => order.push('third'), 5);
    clock.schedule(() => order.push('first'), 0);
    expect(clock.pending).toBe(3);
    await clock.settle();
    expect(order).toEqual(['first']);
    expect(clock.nextAt()).toBe(1_005);
    await clock.advance(5);
    expect(order).toEqual(['first', 'second', 'third']);
  });

  test('a periodic timer re-queues itself; an unsubscribed one never runs', async () => {
    const clock = new TestClock();
    const ticks: number[] = [];
    interval(100, clock).pipe(take(3)).subscribe(() => ticks.push(clock.now()));
    let cancelled = false;
    clock.schedule(() => (cancelled = true), 150).unsubscribe();
    expect(await clock.runAll()).toBe(300);
    expect(ticks).toEqual([100, 200, 300]);
    expect(cancelled).toBe(false);
    expect(clock.pending).toBe(0);
  });

  test('runUntil steps to the moment a promise settles, and says so when nothing on the clock can settle it', async () => {
    const clock = new TestClock();
    await expect(clock.runUntil(wait(clock, 70).then(() => 'done'))).resolves.toBe('done');
    expect(clock.now()).toBe(70);
    await expect(clock.runUntil(new Promise(() => {}))).rejects.toThrow(/no timer left at 70 ms and the promise is still pending/);
  });

  test('refuses time going backwards, two advances at once, and a timer that never ends', async () => {
    const clock = new TestClock({ maxTimers: 50 });
    await clock.advance(10);
    await expect(clock.advanceTo(5)).rejects.toThrow(RangeError);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    const first = clock.advance(1);
    await expect(clock.advance(1)).rejects.toThrow(/already being advanced/);
    await first;
    interval(1, clock).subscribe();
    await expect(clock.runAll()).rejects.toThrow(/after 50 \(a periodic timer\?\)/);
  });

  test('an error thrown by a timer rejects the advance that ran it', async () => {
    const clock = new TestClock();
    clock.schedule(() => {
      throw new Error('boom');
    }, 5);
    await expect(clock.advance(5)).rejects.toThrow('boom');
  });
});
