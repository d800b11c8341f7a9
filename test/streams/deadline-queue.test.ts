import { describe, expect, test } from 'vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { DeadlineQueue } from '../../lib/deadline-queue.js';

function setup(delay = 100, keepArmed = false) {
  const scheduler = new VirtualTimeScheduler();
  const queue = new DeadlineQueue(scheduler, delay, keepArmed);
  const fired: Array<[string, number]> = [];
  const at = (ms: number, work: () => void) => scheduler.schedule(work, ms);
  const add = (name: string) => {
    const entry = queue.add({ expire: () => fired.push([name, scheduler.now()]) });
    return () => queue.remove(entry);
  };
  return { scheduler, queue, fired, at, add };
}

describe('DeadlineQueue', () => {
  test('each entry expires exactly delayMs after it was added, in order', () => {
    const { scheduler, fired, at, add } = setup();
    at(0, () => add('a'));
    at(10, () => add('b'));
    at(10, () => add('c'));
    at(55, () => add('d'));
    scheduler.flush();
    expect(fired).toEqual([
      ['a', 100],
      ['b', 110],
      ['c', 110],
      ['d', 155],
    ]);
  });

  test('a removed entry never fires, and the next one still fires on its own frame', () => {
    const { scheduler, fired, at, add } = setup();
    let cancelA = () => {};
    at(0, () => (cancelA = add('a')));
    at(30, () => add('b'));
    at(50, () => cancelA());
    scheduler.flush();
    expect(fired).toEqual([['b', 130]]);
  });

  test('an empty queue holds no scheduled action', () => {
    const { scheduler, at, add } = setup();
    at(0, () => {
      const cancel = add('a');
      cancel();
    });
    scheduler.flush();
    expect(scheduler.actions).toHaveLength(0);
    expect(scheduler.now()).toBe(0);
  });

  test('clear forgets every entry and disarms the timer: nothing expires, nothing stays scheduled', () => {
    const { scheduler, queue, fired, at, add } = setup();
    at(0, () => add('a'));
    at(10, () => add('b'));
    at(20, () => queue.clear());
    at(30, () => expect(scheduler.actions).toHaveLength(0));
    scheduler.flush();
    expect(fired).toEqual([]);
    expect(scheduler.now()).toBe(30);
  });

  test('an entry added from an expiry callback is kept', () => {
    const { scheduler, queue, fired, at } = setup(10);
    at(0, () =>
      queue.add({
        expire: () => {
          fired.push(['first', scheduler.now()]);
          queue.add({ expire: () => fired.push(['second', scheduler.now()]) });
        },
      }),
    );
    scheduler.flush();
    expect(fired).toEqual([
      ['first', 10],
      ['second', 20],
    ]);
  });

  test('keepArmed: a queue emptied and filled per request arms no timer per request, and each entry still expires on its own frame', () => {
    const { scheduler, fired, at, add } = setup(100, true);
    let scheduled = 0;
    const schedule = scheduler.schedule.bind(scheduler);
    scheduler.schedule = ((work: () => void, delay?: number, state?: unknown) => {
      scheduled += 1;
      return schedule(work as never, delay, state as never);
    }) as typeof scheduler.schedule;
    // Ten requests one after another, each adding and removing its entry: the first arms the one timer.
    at(0, () => {
      for (let i = 0; i < 10; i++) add(`r${i}`)();
    });
    at(40, () => add('late'));
    scheduler.flush();
    expect(fired).toEqual([['late', 140]]);
    // the test's two, the queue's first (due at 100, finding nothing) and its re-arm for 'late' at 140
    expect(scheduled).toBe(4);
  });

  test('keepArmed: clear() disarms the timer it kept', () => {
    const { scheduler, queue, fired, add } = setup(100, true);
    add('a')();
    queue.clear();
    expect(scheduler.actions.length).toBe(0);
    scheduler.flush();
    expect(fired).toEqual([]);
  });

  test('without keepArmed an emptied queue holds no timer', () => {
    const { scheduler, add } = setup(100);
    add('a')();
    expect(scheduler.actions.length).toBe(0);
  });
});
