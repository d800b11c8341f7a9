/**
 * Eventual: an answer that is here now (a plain value) or Later.
 *
 * A Later is a callback's Promise or Observable (or one of our DirectSources:
 * any ReplyStream) plus the functions that turn its last value (or its
 * error) into the answer. Composing on a Later composes those functions; it
 * stacks no operators. Only the one subscriber that finally needs the
 * answer (a worker) subscribes, once, so an
 * asynchronous call costs one subscription however many stages shaped its
 * answer, and a synchronous call costs none. An Observable callback answers
 * with its LAST value (`undefined` when it completes empty); a Promise with
 * its resolution.
 */
import { Observable, of } from 'rxjs';
import { isReplyStream, openSource, type ReplyStream } from './direct-source.js';

export class Later<T> {
  constructor(
    /** What the callback answered. */
    readonly source: ReplyStream<unknown> | PromiseLike<unknown>,
    /** Reads the last value (a throw is the answer's error). Called as a method of its Later, as onError is. */
    readonly onDone: (last: unknown) => Eventual<T>,
    /** Reads the source's error (rethrow to keep it an error). */
    readonly onError: (error: unknown) => Eventual<T>,
    /** Sees every value first; false means it is not a candidate for the answer (a progress update). */
    readonly onValue: ((value: unknown) => boolean) | null = null,
  ) {}
}

export type Eventual<T> = T | Later<T>;

function rethrow(error: unknown): never {
  throw error;
}

function identity(value: unknown): unknown {
  return value;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Whether a callback answered with something to wait for (a Promise, an Observable or a DirectSource). */
export function isLaterAnswer(answer: unknown): answer is ReplyStream<unknown> | PromiseLike<unknown> {
  return isReplyStream(answer) || isThenable(answer);
}

export function isLater<T>(value: Eventual<T>): value is Later<T> {
  return value instanceof Later;
}

/** A callback's answer as an Eventual: a plain value as it is, a Promise or an Observable Later. */
export function eventualOf<T>(answer: T | PromiseLike<T> | ReplyStream<T>, onValue: ((value: unknown) => boolean) | null = null): Eventual<T | undefined> {
  if (isLaterAnswer(answer)) {
    return new Later<T | undefined>(answer, identity as (last: unknown) => T | undefined, rethrow, onValue);
  }
  return answer;
}

/** Applies `next` to the answer, now if it is here; `next` may itself answer Later. */
export function thenEventual<T, R>(value: Eventual<T>, next: (value: T) => Eventual<R>): Eventual<R> {
  if (!(value instanceof Later)) return next(value);
  return new Later<R>(
    value.source,
    (last) => thenEventual(value.onDone(last), next),
    (error) => thenEventual(value.onError(error), next),
    value.onValue,
  );
}

/**
 * Runs `run`; a throw, now or later (a failed Promise or Observable, or a
 * throw while reading its value), goes to `recover`.
 */
export function attempt<T>(run: () => Eventual<T>, recover: (error: unknown) => Eventual<T>): Eventual<T> {
  let result: Eventual<T>;
  try {
    result = run();
  } catch (error) {
    return recover(error);
  }
  if (!(result instanceof Later)) return result;
  const later = result;
  return new Later<T>(
    later.source,
    (last) => attempt(() => later.onDone(last), recover),
    (error) => attempt(() => later.onError(error), recover),
    later.onValue,
  );
}

/**
 * Reads an Eventual: `answer` or `failure` is called exactly once, now
 * when it is here; the returned function cancels (unsubscribes the source).
 */
export interface EventualObserver<T> {
  answer(value: T): void;
  failure(error: unknown): void;
}

/** A reading under way: what cancels it, and how many values the source it reads has emitted so far. */
export interface Reading {
  cancel(): void;
  /**
   * Values the Observable being read emitted (progress updates included):
   * a reading cancelled at its deadline after some had come was an
   * Observable that emitted but never completed, which the timeout names.
   */
  readonly seen: number;
}

/**
 * Reads one Eventual for one observer. An object with methods rather than
 * closures: one exists per asynchronous call in flight, and a thousand may be.
 * It is its own RxJS observer (next/error/complete) for the current source.
 */
class LaterReader<T> implements Reading {
  /** A field of the reader every waiting call has already: counting costs no object. */
  seen = 0;
  private cancelled = false;
  private current: Later<T> | undefined;
  private last: unknown;
  private subscription: { unsubscribe(): void } | undefined;
  private step = 0;

  constructor(private readonly observer: EventualObserver<T>) {}

  read(later: Later<T>): void {
    const mine = ++this.step;
    this.current = later;
    this.last = undefined;
    this.seen = 0;
    const source = later.source;
    if (isReplyStream(source)) {
      const subscription = openSource(source, this);
      // A nested Later read synchronously while subscribing owns the subscription now.
      if (this.step === mine) this.subscription = subscription;
      return;
    }
    source.then(
      (value) => {
        if (this.step === mine) this.finish(later, true, value);
      },
      (error: unknown) => {
        if (this.step === mine) this.finish(later, false, error);
      },
    );
  }

  next(value: unknown): void {
    this.seen += 1;
    const filter = this.current?.onValue ?? null;
    if (filter === null || filter(value)) this.last = value;
  }

  error(error: unknown): void {
    this.finish(this.current!, false, error);
  }

  complete(): void {
    this.finish(this.current!, true, this.last);
  }

  cancel(): void {
    this.cancelled = true;
    this.step += 1;
    this.subscription?.unsubscribe();
  }

  private finish(later: Later<T>, done: boolean, value: unknown): void {
    if (this.cancelled) return;
    let next: Eventual<T>;
    try {
      next = done ? later.onDone(value) : later.onError(value);
    } catch (error) {
      this.observer.failure(error);
      return;
    }
    if (next instanceof Later) this.read(next);
    else this.observer.answer(next);
  }
}

const SETTLED: Reading = { cancel(): void {}, seen: 0 };

/** Returns what cancels the reading; for an answer already here, `answer` is called now. */
export function settleEventual<T>(value: Eventual<T>, observer: EventualObserver<T>): Reading {
  if (!(value instanceof Later)) {
    observer.answer(value);
    return SETTLED;
  }
  const reader = new LaterReader(observer);
  reader.read(value);
  return reader;
}

/** An Eventual as an Observable of one value, for the places that compose Observables. */
export function toObservable<T>(value: Eventual<T>): Observable<T> {
  if (!(value instanceof Later)) return of(value);
  return new Observable<T>((subscriber) => {
    const reading = settleEventual(value, {
      answer: (answer) => {
        subscriber.next(answer);
        subscriber.complete();
      },
      failure: (error) => subscriber.error(error),
    });
    return () => reading.cancel();
  });
}
