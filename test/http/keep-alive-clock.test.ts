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

  test('with nothing added, or everything stopped, no timer is pending', () => {
    const clock = virtualClock();
    const keepAlive = new KeepAliveClock(10, clock.scheduler);
    expect(clock.scheduler.actions.length).toBe(0);
    const stops = [keepAlive.add(() => {}), keepAlive.add(() => {})];
    expect(clock.scheduler.actions.filter((a) => !a.closed).length).toBe(1);
    for (const stop of stops) stop();
    expect(clock.scheduler.actions.filter((a) => !a.closed).length).toBe(0);
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
