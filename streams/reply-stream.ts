/**
 * ReplyStream: what a method handler hands on for a request, and the reply
 * it becomes. Two parts, one concept (a request's reply, from the stream
 * its method returns to the one value that goes out):
 *
 * - DirectSource: a stream of ours that a consumer of ours opens without an
 *   RxJS Subscriber in between, and anything else consumes through RxJS's
 *   public interop protocol;
 * - FirstReply (with its policy, a ReplySource): the first value, then
 *   complete; nothing if the client cancels first. Exactly-once lives here.
 *
 * A routed request's ReplySource (its cancel scope, a pipeline failure
 * answered as an internal error, its era's encoding) is the spine's encode
 * stage's (stages/encode.ts: RequestReply).
 *
 * ```
 * replies:   ----a--b--|        (a second value, or an error after the first: ignored)
 * reply:     ----A|             A = shape(a), if the source shapes
 * cancelled: --x                (cancel before a: nothing out, the stream unsubscribed)
 * failing:   --#                -> --E|  E = recover(error) (a request's: an internal error for it)
 * ```
 *
 * DirectSource: `observable.subscribe(observer)` wraps a plain observer in a
 * Subscriber and its helpers (about 250 bytes), held for as long as a call waits. A
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
import type { CancelScope, CancelTarget } from './state/cancellation.js';

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

/*
 * FirstReply: a request's reply, the first value of its stream, then
 * complete; nothing at all if the client cancels it first (cancellation.ts).
 * This is where a request's exactly-once lives: whatever the stream under it
 * does (a second value, an error after the value, a late value after a
 * cancel), its consumer gets one reply or, cancelled, none, and then nothing.
 *
 * What a reply needs besides its stream (where a cancel finds it, how a
 * failure is answered, how its value is shaped) is a ReplySource's, read as
 * methods: the encode stage makes one per request (RequestReply) instead of a
 * recover and a shape closure over the request, an object for its cancel
 * scope, and a wrapper around the stream.
 */
/**
 * The stream a FirstReply reads, and its policy. A DirectSource:
 * replyEach opens it without an RxJS Subscriber per waiting call.
 */
export abstract class ReplySource<T> extends DirectSource<T> {
  abstract readonly replies: ReplyStream<T>;
  /** Where a cancel finds the reply; undefined: it cannot be cancelled. */
  abstract readonly cancels: CancelScope | undefined;
  /** Whether a failure before the first value is answered with `recover(error)` (else it fails). */
  abstract readonly recovers: boolean;
  /** Whether the first value goes out as `shape(value)`. */
  abstract readonly shapes: boolean;

  abstract recover(error: unknown): T;
  abstract shape(value: T): T;

  open(observer: DirectObserver<T>): Unsubscribable | undefined {
    const reply = new FirstReply(observer, this);
    // A worker is opened without an RxJS Subscriber in between: this reply already keeps its guarantees.
    const inner = openSource(this.replies, reply);
    reply.inner = inner;
    if (reply.done) {
      inner.unsubscribe();
      return undefined;
    }
    const cancels = this.cancels;
    if (cancels !== undefined) reply.register(cancels);
    return reply;
  }
}

/**
 * One reply in flight: takes the first value, is what a cancel reaches, and
 * is its own teardown. Its consumer is an RxJS Subscriber, or (opened
 * directly, reply-stream.ts) a plain observer: then this keeps what the
 * Subscriber would, nothing after the end and the teardown run at the end.
 */
class FirstReply<T> implements CancelTarget {
  private replied = false;
  /** The consumer has had its last call (complete or error). */
  private ended = false;
  private tornDown = false;
  inner: Unsubscribable | undefined;
  /** Where a cancel finds this reply while it waits; a reply that answered while it was opened is never registered. */
  private registered: CancelScope | undefined;

  constructor(
    private readonly subscriber: DirectObserver<T> & { readonly closed?: boolean },
    private readonly source: ReplySource<T>,
  ) {}

  get done(): boolean {
    return this.replied || this.ended || this.subscriber.closed === true;
  }

  next(value: T): void {
    if (this.replied || this.ended) return;
    if (this.source.shapes) {
      let shaped: T;
      try {
        shaped = this.source.shape(value);
      } catch (error) {
        // As a failure of the source: recovered, unless there is nothing to recover with.
        this.error(error);
        return;
      }
      this.reply(shaped);
    } else {
      this.reply(value);
    }
  }

  error(error: unknown): void {
    if (this.ended) return;
    if (this.source.recovers && !this.replied) {
      this.reply(this.source.recover(error));
      return;
    }
    this.ended = true;
    try {
      this.subscriber.error(error);
    } finally {
      this.unsubscribe();
    }
  }

  private reply(value: T): void {
    this.replied = true;
    try {
      this.subscriber.next(value);
    } finally {
      this.complete();
    }
  }

  complete(): void {
    if (this.ended) return;
    this.ended = true;
    try {
      this.subscriber.complete();
    } finally {
      this.unsubscribe();
    }
  }

  register(cancels: CancelScope): void {
    this.registered = cancels;
    cancels.table.register(cancels.connId, cancels.requestId, this);
  }

  /** The client cancelled: no reply, the call's Observable unsubscribed. */
  cancel(): void {
    this.inner?.unsubscribe();
    this.complete();
  }

  /** Runs once: after the consumer's end (as a Subscriber's finalizer would), or when the consumer unsubscribes. */
  unsubscribe(): void {
    if (this.tornDown) return;
    this.tornDown = true;
    const cancels = this.registered;
    if (cancels !== undefined) cancels.table.forget(cancels.connId, cancels.requestId, this);
    this.inner?.unsubscribe();
  }
}

/** A ReplySource made of functions (the places that are not on every request's path, and tests). */
class FunctionReplySource<T> extends ReplySource<T> {
  readonly recovers: boolean;
  readonly shapes: boolean;

  constructor(
    readonly replies: ReplyStream<T>,
    readonly cancels: CancelScope | undefined,
    private readonly recoverWith: ((error: unknown) => T) | undefined,
    private readonly shapeWith: ((value: T) => T) | undefined,
  ) {
    super();
    this.recovers = recoverWith !== undefined;
    this.shapes = shapeWith !== undefined;
  }

  recover(error: unknown): T {
    return this.recoverWith!(error);
  }

  shape(value: T): T {
    return this.shapeWith!(value);
  }
}

/**
 * The first value of `source`, then complete; or, when `cancellations` is
 * given, nothing at all if the client cancels (connId, requestId) first.
 * With `recover`, a failure of `source` before its first value is answered
 * with `recover(error)` instead of failing. With `shape`, the first value
 * goes out as `shape(value)` (a throw there counts as a failure of
 * `source`): what `source.pipe(map(shape))` would give, without an operator
 * and its subscriber per request. A real Observable (through the
 * interop of its ReplySource), for the places that subscribe it.
 */
export function firstReply<T>(
  source: ReplyStream<T>,
  cancellations?: CancelScope,
  recover?: (error: unknown) => T,
  shape?: (value: T) => T,
): Observable<T> {
  return asObservable(new FunctionReplySource(source, cancellations, recover, shape));
}

