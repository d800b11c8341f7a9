/**
 * sleep: a wait on a scheduler's clock, as a Promise that rejects with the
 * signal's reason when the signal aborts. Inside a handler, `ctx.sleep(ms)`
 * is this on the SERVER's clock with the call's signal, so a test's virtual
 * clock drives it; outside one (a helper shared by handlers, a middleware),
 * pass the server's scheduler (`server.scheduler`) yourself.
 *
 *   handler: async ({ ms }, ctx) => { await ctx.sleep(Number(ms)); return 'done'; }
 *   await sleep(100, { scheduler: server.scheduler, signal })
 */
import { asyncScheduler, timer, type SchedulerLike } from 'rxjs';
import { untilAborted } from './until-aborted.js';

/** Options of `sleep`: the scheduler to wait on and a signal that cancels the wait. */
export interface SleepOptions {
  /** Default asyncScheduler (real time). */
  readonly scheduler?: SchedulerLike | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** Waits `ms` on a scheduler (the server's: `server.scheduler`), rejecting with the signal's reason when it aborts. In a handler, `ctx.sleep(ms)` is the same. */
export function sleep(ms: number, options: SleepOptions = {}): Promise<void> {
  const wait = timer(ms, options.scheduler ?? asyncScheduler);
  const done = options.signal === undefined ? new Promise<number>((resolve, reject) => wait.subscribe({ next: resolve, error: reject })) : untilAborted(wait, options.signal);
  return done.then(() => undefined);
}
