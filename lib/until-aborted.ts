/**
 * untilAborted: the first value of an Observable as a Promise that rejects
 * with the signal's reason the moment the signal aborts, unsubscribing the
 * source. The bridge from a handler's `async` code to the server's
 * Observables (client requests, waits on the server's scheduler).
 */
import type { Observable } from 'rxjs';

/** The first value of an Observable as a Promise that rejects with the signal's reason when it aborts, unsubscribing the source. */
export function untilAborted<T>(source: Observable<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      subscription.unsubscribe();
      reject(signal.reason);
    };
    const subscription = source.subscribe({
      next: (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      error: (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    });
    if (!subscription.closed) signal.addEventListener('abort', onAbort, { once: true });
  });
}
