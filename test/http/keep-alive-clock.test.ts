import { describe, expect, test } from 'vitest';
import { KeepAliveClock } from '../../transports/http/keep-alive.js';
import { virtualClock } from './helpers.js';

describe('KeepAliveClock (one timer for every SSE stream of a handler)', () => {
  test('each stream ticks every period from when it was added, as its own interval would', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(10, clock.scheduler);
    const ticks: string[] = [];
    keepAlive.add(() => ticks.push(`a@${clock.scheduler.now()}`));
    clock.advance(4);
    const stopB = keepAlive.add(() => ticks.push(`b@${clock.scheduler.now()}`));
    clock.advance(20);
    expect(ticks).toEqual(['a@10', 'b@14', 'a@20', 'b@24']);
    stopB();
    stopB();
    clock.advance(20);
    expect(ticks).toEqual(['a@10', 'b@14', 'a@20', 'b@24', 'a@30', 'a@40']);
  });

  test('with nothing added no timer is pending; everything stopped, the timer fires once more and is not armed again', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(10, clock.scheduler);
    const pending = () => clock.scheduler.actions.filter((a) => !a.closed).length;
    expect(pending()).toBe(0);
    let ticks = 0;
    const stops = [keepAlive.add(() => (ticks += 1)), keepAlive.add(() => (ticks += 1))];
    expect(pending()).toBe(1);
    for (const stop of stops) stop();
    expect(pending()).toBe(1);
    clock.advance(10);
    expect(ticks).toBe(0);
    expect(pending()).toBe(0);
    clock.advance(100);
    expect(ticks).toBe(0);
  });

  test('streams opened and ended one at a time (one request at a time) share one timer a period instead of arming one each', () => {
    const clock = virtualClock();
    const scheduled: number[] = [];
    const schedule = clock.scheduler.schedule.bind(clock.scheduler);
    clock.scheduler.schedule = ((work: never, delay?: number, state?: never) => {
      scheduled.push(clock.scheduler.now());
      return schedule(work, delay, state);
    }) as typeof clock.scheduler.schedule;
    const keepAlive = new KeepAliveClock(10, clock.scheduler);
    const ticks: number[] = [];
    for (let t = 0; t < 30; t += 1) {
      keepAlive.add(() => ticks.push(clock.scheduler.now()))();
      clock.advance(1);
    }
    // Armed at 0, fired at 10 with nothing live and armed for the stream added at 10 (due 20), and so on: one a period.
    expect(scheduled).toEqual([0, 10, 20]);
    expect(ticks).toEqual([]);
    // A stream that lives through a period still gets its tick, on time.
    const stop = keepAlive.add(() => ticks.push(clock.scheduler.now()));
    clock.advance(25);
    expect(ticks).toEqual([40, 50]);
    stop();
  });

  test('close() disarms at once and silences every stream it held', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(10, clock.scheduler);
    let ticks = 0;
    const stopA = keepAlive.add(() => (ticks += 1));
    keepAlive.add(() => (ticks += 1))();
    keepAlive.close();
    expect(clock.scheduler.actions.filter((a) => !a.closed).length).toBe(0);
    clock.advance(50);
    expect(ticks).toBe(0);
    stopA(); // a stop after close is a no-op
    const stopC = keepAlive.add(() => (ticks += 1));
    clock.advance(10);
    expect(ticks).toBe(1);
    stopC();
  });

  test('a tick that stops its own stream, or another one, takes effect at once', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(5, clock.scheduler);
    const ticks: string[] = [];
    let stopB: () => void = () => {};
    const stopA = keepAlive.add(() => {
      ticks.push('a');
      stopA();
      stopB();
    });
    stopB = keepAlive.add(() => ticks.push('b'));
    const stopC = keepAlive.add(() => ticks.push('c'));
    clock.advance(15);
    expect(ticks).toEqual(['a', 'c', 'c', 'c']);
    stopC();
  });

  test('many streams that end before their first tick leave nothing behind', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(1000, clock.scheduler);
    let ticks = 0;
    const stopLongLived = keepAlive.add(() => (ticks += 1));
    for (let i = 0; i < 10_000; i += 1) keepAlive.add(() => (ticks += 1000))();
    clock.advance(2000);
    expect(ticks).toBe(2);
    expect((keepAlive as unknown as { queue: unknown[] }).queue.length).toBeLessThan(100);
    stopLongLived();
  });
});
