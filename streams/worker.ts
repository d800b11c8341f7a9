/**
 * worker: runs one callback body under the in-flight bounds and the callback
 * timeout, and turns every way it can end into one WorkerOutcome.
 *
 * - above either bound: `server_busy`, and the body is never started;
 * - the body's first value wins a race against `timer(timeoutMs, scheduler)`;
 * - a throw or error is `callback_crashed`;
 * - the body's AbortSignal aborts when the worker ends without a value
 *   (timeout, or unsubscription: every kind of cancellation).
 * The slot is released as soon as the outcome is known, before it travels on.
 */
import { Observable, map, race, take, timer, type SchedulerLike } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import type { CallbackFailure } from '../lib/errors.js';
import type { Admission } from './admission.js';

export type WorkerOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: CallbackFailure; readonly error?: unknown };

export interface WorkerOptions {
  readonly admission: Admission;
  readonly connId: ConnId;
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
}

export class CallCancelledError extends Error {
  override name = 'CallCancelledError';
}

export function worker<T>(options: WorkerOptions, body: (signal: AbortSignal) => Observable<T>): Observable<WorkerOutcome<T>> {
  return new Observable<WorkerOutcome<T>>((subscriber) => {
    const release = options.admission.tryAcquire(options.connId);
    if (release === null) {
      subscriber.next({ ok: false, reason: 'server_busy' });
      subscriber.complete();
      return;
    }
    const controller = new AbortController();
    let succeeded = false;
    const settle = (outcome: WorkerOutcome<T>) => {
      release();
      succeeded = outcome.ok;
      if (!outcome.ok && !controller.signal.aborted) controller.abort(new CallCancelledError(outcome.reason));
      subscriber.next(outcome);
      subscriber.complete();
    };
    const subscription = race(
      new Observable<T>((inner) => {
        try {
          return body(controller.signal).subscribe(inner);
        } catch (error) {
          inner.error(error);
          return undefined;
        }
      }).pipe(
        take(1),
        map((value): WorkerOutcome<T> => ({ ok: true, value })),
      ),
      timer(options.timeoutMs, options.scheduler).pipe(map((): WorkerOutcome<T> => ({ ok: false, reason: 'callback_timeout' }))),
    ).subscribe({
      next: settle,
      error: (error: unknown) => settle({ ok: false, reason: 'callback_crashed', error }),
      complete: () => {
        if (!subscriber.closed) settle({ ok: false, reason: 'callback_crashed', error: new Error('callback produced no value') });
      },
    });
    return () => {
      subscription.unsubscribe();
      release();
      if (!succeeded && !controller.signal.aborted) controller.abort(new CallCancelledError('cancelled'));
    };
  });
}
