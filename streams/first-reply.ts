/**
 * FirstReply: a request's reply, the first value of its stream, then
 * complete; nothing at all if the client cancels it first (cancellation.ts).
 * This is where a request's exactly-once lives: whatever the stream under it
 * does (a second value, an error after the value, a late value after a
 * cancel), its consumer gets one reply or, cancelled, none, and then nothing.
 *
 * What a reply needs besides its stream (where a cancel finds it, how a
 * failure is answered, how its value is shaped) is a ReplySource's, read as
 * methods: route makes one per request (request-reply.ts) instead of a
 * recover and a shape closure over the request, an object for its cancel
 * scope, and a wrapper around the stream.
 */
import type { Observable, Unsubscribable } from 'rxjs';
import type { CancelScope, CancelTarget } from './state/cancellation.js';
import { asObservable, DirectSource, openSource, type DirectObserver, type ReplyStream } from './direct-source.js';

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
    if (cancels !== undefined) cancels.table.register(cancels.connId, cancels.requestId, reply);
    return reply;
  }
}

/**
 * One reply in flight: takes the first value, is what a cancel reaches, and
 * is its own teardown. Its consumer is an RxJS Subscriber, or (opened
 * directly, direct-source.ts) a plain observer: then this keeps what the
 * Subscriber would, nothing after the end and the teardown run at the end.
 */
class FirstReply<T> implements CancelTarget {
  private replied = false;
  /** The consumer has had its last call (complete or error). */
  private ended = false;
  private tornDown = false;
  inner: Unsubscribable | undefined;

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

  /** The client cancelled: no reply, the call's Observable unsubscribed. */
  cancel(): void {
    this.inner?.unsubscribe();
    this.complete();
  }

  /** Runs once: after the consumer's end (as a Subscriber's finalizer would), or when the consumer unsubscribes. */
  unsubscribe(): void {
    if (this.tornDown) return;
    this.tornDown = true;
    const cancels = this.source.cancels;
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
