/**
 * DirectSource: a stream of ours that a consumer of ours may open without
 * an RxJS Subscriber in between, and that anything else consumes through
 * RxJS's public interop protocol.
 *
 * `observable.subscribe(observer)` wraps a plain observer in a Subscriber
 * and its helpers (about 250 bytes), held for as long as a call waits. A
 * request's reply is consumed by exactly one of our own consumers
 * (replyEach, a FirstReply, a worker following a parked call),
 * which keeps the guarantees that wrapper would, so it opens the source
 * directly: `open(observer)`. Everyone else, and every public boundary,
 * gets a real Observable: `from(source)` (the `Symbol.observable` interop
 * method below), `asObservable(source)`, or `source.subscribe(...)`, each
 * going through `new Observable(...)`, so partial observers, the closed
 * Subscriber and the rest of RxJS's guarantees hold for them.
 *
 * A DirectSource is not an Observable (no subclass of RxJS's: only its public
 * API). What a method handler or a reply stage hands on is a ReplyStream:
 * either one.
 */
import { Observable, isObservable, observable, type InteropObservable, type Observer, type Subscription, type Unsubscribable } from 'rxjs';

export interface DirectObserver<T> {
  next(value: T): void;
  error(error: unknown): void;
  complete(): void;
}

/**
 * The interop member, `[Symbol.observable]()`, as the type system knows it.
 * The class defines it under rxjs's `observable` key, which is
 * `Symbol.observable` when the platform (or a polyfill) has one and
 * `'@@observable'` otherwise: the key `from()` and every operator look for.
 */
export interface DirectSource<T> extends InteropObservable<T> {}

export abstract class DirectSource<T> {
  /**
   * Starts for `observer`. The contract a direct consumer relies on (what
   * an RxJS Subscriber would otherwise enforce): at most one of `error` or
   * `complete`, nothing after it or after the returned teardown is called,
   * the teardown safe to call more than once, and a throw while starting
   * delivered to `observer.error`, never thrown. `undefined`: nothing to
   * tear down (the source has already ended).
   */
  abstract open(observer: DirectObserver<T>): Unsubscribable | undefined;

  /** The interop protocol (`from(source)`, operators, `race`...): a new Observable that opens this source per subscriber. */
  [observable](): Observable<T> {
    return observableOf(this);
  }

  /** As an Observable's `subscribe`: through a real Observable, so a partial observer or a function works and the result is a Subscription. */
  subscribe(observerOrNext?: Partial<Observer<T>> | ((value: T) => void)): Subscription {
    return observableOf(this).subscribe(observerOrNext);
  }
}

/** Not `from(source)`: that would read `[observable]` to come back here; this is the one place the Observable is made. */
function observableOf<T>(source: DirectSource<T>): Observable<T> {
  return new Observable<T>((subscriber) => source.open(subscriber));
}

/**
 * What a method handler, a worker's reply or a reply stage returns: a real
 * Observable, or a DirectSource that our own consumers open directly. Open
 * it with `openSource`; hand it outside as `asObservable(stream)`.
 */
export type ReplyStream<T> = Observable<T> | DirectSource<T>;

/** Whether `value` is a ReplyStream (isObservable, and a DirectSource too). */
export function isReplyStream(value: unknown): value is ReplyStream<unknown> {
  return value instanceof DirectSource || isObservable(value);
}

/** The stream as a real Observable: itself when it is one. */
export function asObservable<T>(stream: ReplyStream<T>): Observable<T> {
  return stream instanceof DirectSource ? observableOf(stream) : stream;
}

const NOTHING: Unsubscribable = { unsubscribe(): void {} };

/** Opens a DirectSource directly (no Subscriber in between); subscribes an Observable. */
export function openSource<T>(source: ReplyStream<T>, observer: DirectObserver<T>): Unsubscribable {
  if (!(source instanceof DirectSource)) return source.subscribe(observer);
  return source.open(observer) ?? NOTHING;
}
