/**
 * DirectSource: an Observable of ours that a consumer of ours may start
 * without an RxJS Subscriber in between.
 *
 * `source.subscribe(observer)` wraps a plain observer in a SafeSubscriber, a
 * ConsumerObserver and an array for its one teardown (about 250 bytes), held
 * for as long as the call waits. A worker's reply is consumed by exactly one
 * FirstReply, which already keeps the guarantees the wrapper would (one
 * reply, nothing after its end), so it opens the worker directly. Anything
 * else, or a DirectSource subscribed the ordinary way, goes through RxJS.
 */
import { Observable, type Unsubscribable } from 'rxjs';

export interface DirectObserver<T> {
  next(value: T): void;
  error(error: unknown): void;
  complete(): void;
}

export abstract class DirectSource<T> extends Observable<T> {
  /**
   * Starts for `observer`, as `subscribe` would: nothing reaches it after
   * it ends or after the returned teardown, and a throw while starting goes
   * to `observer.error` (what Observable._trySubscribe does).
   */
  abstract open(observer: DirectObserver<T>): Unsubscribable | undefined;
}

const NOTHING: Unsubscribable = { unsubscribe(): void {} };

/** `source.subscribe(observer)`, without the wrapper when `source` is a DirectSource. */
export function openSource<T>(source: Observable<T>, observer: DirectObserver<T>): Unsubscribable {
  if (!(source instanceof DirectSource)) return source.subscribe(observer);
  return (source as DirectSource<T>).open(observer) ?? NOTHING;
}
