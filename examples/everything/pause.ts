/**
 * pause: waits `ms` on the server's scheduler (so a test's virtual clock
 * drives the fixture's delays) and rejects with the signal's reason the
 * moment the call is cancelled.
 */
import { timer, type SchedulerLike } from 'rxjs';

export function pause(ms: number, scheduler: SchedulerLike, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      wait.unsubscribe();
      reject(signal.reason);
    };
    const wait = timer(ms, scheduler).subscribe(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
