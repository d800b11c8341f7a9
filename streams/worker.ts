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
import { Observable, isObservable, type Subscriber, type Subscription } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import type { CallbackFailure } from '../lib/errors.js';
import type { Admission } from './admission.js';
import type { DeadlineEntry, DeadlineQueue } from './deadline-queue.js';
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

/**
 * One worker's life, as one object: a call should not pay for a handful of
 * closures (this runs for every tools/call and read, and 1000 of them may be
 * in flight at once).
 */
class WorkerRun<T, R> {
  private settled = false;
  private succeeded = false;
  private onward: Subscription | undefined;
  private cancelAnswer: (() => void) | undefined;
  private deadline: DeadlineEntry | undefined;
  private deadlines: DeadlineQueue | undefined;
  readonly abort = new LazyAbort();

  constructor(
    private readonly subscriber: Subscriber<R>,
    private readonly then: (outcome: WorkerOutcome<T>) => R | Observable<R>,
    private readonly release: () => void,
  ) {}

  start(answer: Eventual<T>, deadlines: DeadlineQueue): void {
    if (!isLater(answer)) {
      this.settle({ ok: true, value: answer });
      return;
    }
    this.deadlines = deadlines;
    this.deadline = deadlines.add(this);
    this.cancelAnswer = settleEventual(answer, this);
  }

  /** The callback timeout (the DeadlineQueue's target). */
  expire(): void {
    this.settle(TIMED_OUT);
  }

  /** The answer arrived (settleEventual's observer). */
  answer(value: T): void {
    this.settle({ ok: true, value });
  }

  /** The answer failed (settleEventual's observer). */
  failure(error: unknown): void {
    this.settle({ ok: false, reason: 'callback_crashed', error });
  }

  settle(outcome: WorkerOutcome<T>): void {
    if (this.settled) return;
    this.settled = true;
    this.release();
    if (this.deadline !== undefined) this.deadlines!.remove(this.deadline);
    this.succeeded = outcome.ok;
    if (!outcome.ok) {
      this.abort.abort(new CallCancelledError(outcome.reason));
      this.cancelAnswer?.();
    }
    deliver(this.subscriber, this.then(outcome), (onward) => (this.onward = onward));
  }

  teardown(): void {
    this.onward?.unsubscribe();
    if (this.settled) return;
    this.settled = true;
    this.release();
    if (this.deadline !== undefined) this.deadlines!.remove(this.deadline);
    this.cancelAnswer?.();
    if (!this.succeeded) this.abort.abort(new CallCancelledError('cancelled'));
  }
}

function deliver<R>(subscriber: Subscriber<R>, reply: R | Observable<R>, keep: (onward: Subscription) => void): void {
  if (isObservable(reply)) {
    keep(reply.subscribe(subscriber));
    return;
  }
  subscriber.next(reply);
  subscriber.complete();
}

export function worker<T, R>(
  options: WorkerOptions,
  body: (abort: LazyAbort) => Eventual<T>,
  then: (outcome: WorkerOutcome<T>) => R | Observable<R>,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    const release = options.admission.tryAcquire(options.connId);
    if (release === null) {
      let onward: Subscription | undefined;
      deliver(subscriber, then(BUSY), (kept) => (onward = kept));
      return () => onward?.unsubscribe();
    }
    const run = new WorkerRun<T, R>(subscriber, then, release);
    let answer: Eventual<T>;
    try {
      answer = body(run.abort);
    } catch (error) {
      run.failure(error);
      return () => run.teardown();
    }
    run.start(answer, options.deadlines);
    return () => run.teardown();
  });
}
