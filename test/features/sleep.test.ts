import { describe, expect, test } from 'vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { sleep } from '../../lib/index.js';

describe('sleep', () => {
  test('resolves after ms on the given scheduler, not on the wall clock', async () => {
    const scheduler = new VirtualTimeScheduler();
    let done = false;
    const waiting = sleep(500, { scheduler }).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    scheduler.flush();
    await waiting;
    expect(done).toBe(true);
    expect(scheduler.now()).toBe(500);
  });

  test('rejects with the signal reason when aborted, and frees its timer', async () => {
    const scheduler = new VirtualTimeScheduler();
    const controller = new AbortController();
    const waiting = sleep(500, { scheduler, signal: controller.signal });
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(scheduler.actions.filter((a) => !a.closed)).toHaveLength(0);
  });
});
