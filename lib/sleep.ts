/**
 * sleep: a handler's wait on the SERVER's clock (`ctx`-independent, pass
 * `server.scheduler` or the scheduler you gave createServer), so a test's
 * virtual clock drives it; rejects with the signal's reason when the call is
 * cancelled.
 *
 *   handler: async ({ ms }, ctx) => { await sleep(Number(ms), { scheduler, signal: ctx.signal }); return 'done'; }
 */
import { asyncScheduler, timer, type SchedulerLike } from 'rxjs';
import { untilAborted } from './until-aborted.js';

export interface SleepOptions {
  readonly scheduler?: SchedulerLike;
  readonly signal?: AbortSignal;
}

export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const wait = timer(ms, options.scheduler ?? asyncScheduler);
  const done = options.signal === undefined ? new Promise<number>((resolve, reject) => wait.subscribe({ next: resolve, error: reject })) : untilAborted(wait, options.signal);
  return done.then(() => undefined);
}
