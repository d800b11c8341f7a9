/**
 * worker: runs one callback body under the in-flight bounds and the callback
 * timeout, turns every way it can end into one WorkerOutcome, and hands that
 * to `then` for the reply.
 *
 * - above either bound: `server_busy`, and the body is never started;
 * - an answer that is here now settles at once (no timer is started for
 *   work already done); a Later one settles when it arrives, or with
 *   `callback_timeout` at its deadline, whichever is first;
 * - a throw or error is `callback_crashed`;
 * - the body's AbortSignal aborts when the worker ends without a value
 *   (timeout, or unsubscription: every kind of cancellation).
 * The slot is released as soon as the outcome is known, before it travels on.
 */
import { Observable, isObservable, type Subscription } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import type { CallbackFailure } from '../lib/errors.js';
import type { Admission } from './admission.js';
import type { DeadlineQueue } from './deadline-queue.js';
import { isLater, settleEventual, type Eventual } from './eventual.js';
import { LazyAbort } from './lazy-abort.js';

export type WorkerOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: CallbackFailure; readonly error?: unknown };

export interface WorkerOptions {
  readonly admission: Admission;
  readonly connId: ConnId;
  /** Where the callback timeout is kept (one per server). */
  readonly deadlines: DeadlineQueue;
}

export class CallCancelledError extends Error {
  override name = 'CallCancelledError';
}

const BUSY: WorkerOutcome<never> = { ok: false, reason: 'server_busy' };
const TIMED_OUT: WorkerOutcome<never> = { ok: false, reason: 'callback_timeout' };

export function worker<T, R>(
  options: WorkerOptions,
  body: (abort: LazyAbort) => Eventual<T>,
  then: (outcome: WorkerOutcome<T>) => R | Observable<R>,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    let onward: Subscription | undefined;
    const deliver = (outcome: WorkerOutcome<T>) => {
      const reply = then(outcome);
      if (isObservable(reply)) {
        onward = reply.subscribe(subscriber);
        return;
      }
      subscriber.next(reply);
      subscriber.complete();
    };
    const release = options.admission.tryAcquire(options.connId);
    if (release === null) {
      deliver(BUSY);
      return () => onward?.unsubscribe();
    }
    const abort = new LazyAbort();
    let settled = false;
    let succeeded = false;
    let cancelAnswer: (() => void) | undefined;
    let cancelDeadline: (() => void) | undefined;
    const settle = (outcome: WorkerOutcome<T>) => {
      if (settled) return;
      settled = true;
      release();
      cancelDeadline?.();
      succeeded = outcome.ok;
      if (!outcome.ok) {
        abort.abort(new CallCancelledError(outcome.reason));
        cancelAnswer?.();
      }
      deliver(outcome);
    };
    const teardown = () => {
      onward?.unsubscribe();
      if (settled) return;
      settled = true;
      release();
      cancelDeadline?.();
      cancelAnswer?.();
      if (!succeeded) abort.abort(new CallCancelledError('cancelled'));
    };
    let answer: Eventual<T>;
    try {
      answer = body(abort);
    } catch (error) {
      settle({ ok: false, reason: 'callback_crashed', error });
      return teardown;
    }
    if (!isLater(answer)) {
      settle({ ok: true, value: answer });
      return teardown;
    }
    cancelDeadline = options.deadlines.add(() => settle(TIMED_OUT));
    cancelAnswer = settleEventual(
      answer,
      (value) => settle({ ok: true, value }),
      (error) => settle({ ok: false, reason: 'callback_crashed', error }),
    );
    return teardown;
  });
}
