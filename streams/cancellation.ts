/**
 * Cancellation by the client (notifications/cancelled): a table of the
 * calls in flight, by connection and request id, so a cancel finds its call
 * without every call listening to every cancel. Cancelling is unsubscribing
 * the call's Observable, so the handler's signal aborts and no reply goes out.
 */
import type { Observable, Subscriber, TeardownLogic, Unsubscribable } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import { DirectSource, openSource, type DirectObserver } from './direct-source.js';

/** What a cancel reaches: an object with a method, so a call in flight needs no closure for it. */
export interface CancelTarget {
  cancel(): void;
}

type Cancel = CancelTarget;

export class Cancellations {
  /** Per connection, per request id: one target, or a Set when a client reuses an id in flight. */
  private readonly byConnection = new Map<ConnId, Map<unknown, Cancel | Set<Cancel>>>();

  /** Registers a call until `forget` is called with the same arguments. */
  register(connId: ConnId, requestId: unknown, cancel: Cancel): void {
    let calls = this.byConnection.get(connId);
    if (calls === undefined) {
      calls = new Map();
      this.byConnection.set(connId, calls);
    }
    const held = calls.get(requestId);
    if (held === undefined) calls.set(requestId, cancel);
    else if (held instanceof Set) held.add(cancel);
    else calls.set(requestId, new Set([held, cancel]));
  }

  /** Cancels every call in flight on `connId` under `requestId` (ids are the client's to reuse). */
  cancel(connId: ConnId, requestId: unknown): void {
    const held = this.byConnection.get(connId)?.get(requestId);
    if (held === undefined) return;
    if (held instanceof Set) for (const target of [...held]) target.cancel();
    else held.cancel();
  }

  forget(connId: ConnId, requestId: unknown, cancel: Cancel): void {
    const calls = this.byConnection.get(connId);
    const held = calls?.get(requestId);
    if (calls === undefined || held === undefined) return;
    if (held === cancel) calls.delete(requestId);
    else if (held instanceof Set) {
      held.delete(cancel);
      if (held.size === 1) calls.set(requestId, held.values().next().value as Cancel);
    }
    if (calls.size === 0) this.byConnection.delete(connId);
  }
}

interface CancelScope {
  readonly table: Cancellations;
  readonly connId: ConnId;
  readonly requestId: unknown;
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
    private readonly scope: CancelScope | undefined,
    private readonly recover: ((error: unknown) => T) | undefined,
    private readonly shape: ((value: T) => T) | undefined,
  ) {}

  get done(): boolean {
    return this.replied || this.ended || this.subscriber.closed === true;
  }

  next(value: T): void {
    if (this.replied || this.ended) return;
    if (this.shape !== undefined) {
      let shaped: T;
      try {
        shaped = this.shape(value);
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
    if (this.recover !== undefined && !this.replied) {
      this.reply(this.recover(error));
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
    if (this.scope !== undefined) this.scope.table.forget(this.scope.connId, this.scope.requestId, this);
    this.inner?.unsubscribe();
  }
}

/** A DirectSource: ConnectionReplies opens it without an RxJS Subscriber per waiting call. */
class FirstReplyObservable<T> extends DirectSource<T> {
  constructor(
    private readonly replies: Observable<T>,
    private readonly scope: CancelScope | undefined,
    private readonly recover: ((error: unknown) => T) | undefined,
    private readonly shape: ((value: T) => T) | undefined,
  ) {
    super();
  }

  // RxJS calls _subscribe for each subscription (its typings keep it internal, hence no `override`).
  _subscribe(subscriber: Subscriber<T>): TeardownLogic {
    return this.open(subscriber);
  }

  open(observer: DirectObserver<T>): Unsubscribable | undefined {
    const reply = new FirstReply(observer, this.scope, this.recover, this.shape);
    // A worker is opened without an RxJS Subscriber in between: this reply already keeps its guarantees.
    const inner = openSource(this.replies, reply);
    reply.inner = inner;
    if (reply.done) {
      inner.unsubscribe();
      return undefined;
    }
    if (this.scope !== undefined) this.scope.table.register(this.scope.connId, this.scope.requestId, reply);
    return reply;
  }
}

/**
 * The first value of `source`, then complete; or, when `cancellations` is
 * given, nothing at all if the client cancels (connId, requestId) first.
 * With `recover`, a failure of `source` before its first value is answered
 * with `recover(error)` instead of failing. With `shape`, the first value
 * goes out as `shape(value)` (a throw there counts as a failure of
 * `source`): what `source.pipe(map(shape))` would give, without an operator
 * and its subscriber per request.
 */
export function firstReply<T>(source: Observable<T>, cancellations?: CancelScope, recover?: (error: unknown) => T, shape?: (value: T) => T): Observable<T> {
  return new FirstReplyObservable(source, cancellations, recover, shape);
}
