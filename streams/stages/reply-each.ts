/**
 * replyEach: every request's reply stream subscribed as it comes, its reply
 * handed out when it is ready: what `mergeMap` does, with no concurrency
 * bound here (the in-flight caps are admission's, in each worker, which
 * answers `server_busy` past them instead of queueing). A reply that is here
 * already goes straight out; `null` (the contract's "no reply") goes
 * nowhere. A call that fails inside its stream is a server bug kept to that
 * call (logged; nothing is sent for it).
 *
 * When the source ends (completes, or, for a connection, fails), `onSourceEnd` says what happens to the calls still
 * in flight: `'cancel'` (a connection: the peer is gone, every call ends at
 * once, aborted, and the result completes), `'drain'` (one message handed
 * in: the result completes after the last reply), or a Grace (a connection
 * whose peer is done sending but still reading: the calls in flight get
 * `ms` to answer, then `'cancel'`; the source failing cancels at once). Unsubscribing the result
 * cancels every call in flight: each one's stream is unsubscribed, which
 * aborts its worker and drops its parked call, and no late reply follows.
 *
 * A call in flight holds one small object here (CallInFlight) instead of an
 * operator subscriber and its closures: a thousand may wait on one connection.
 *
 * ```
 * routed:  --a--B------C--|          a a reply now; B, C reply streams
 * B:          ----b|
 * C:                 --c|
 * result ('drain'):  --a------b------c|
 * result ('cancel'): --a------b-------|   C is unsubscribed at the source's end
 * ```
 */
import { Observable, type OperatorFunction, type SchedulerLike, type Subscriber, type Subscription, type Unsubscribable } from 'rxjs';
import type { JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { isReplyStream, openSource } from '../reply-stream.js';
import type { Encoded } from './encode.js';

/**
 * A connection's grace after its inbound completes: its calls in flight get
 * `ms` on `scheduler` to answer, then the rest are cancelled. `starting` runs
 * first (the connection ends what would never answer: its listen streams).
 */
export interface Grace {
  readonly ms: number;
  readonly scheduler: SchedulerLike;
  starting(): void;
}

export type OnSourceEnd = 'cancel' | 'drain' | Grace;

class CallInFlight {
  finished = false;
  subscription: Unsubscribable | undefined;

  constructor(private readonly owner: ReplyEach) {}

  next(reply: JsonRpcResponse | null): void {
    if (reply !== null) this.owner.reply(reply);
  }

  error(error: unknown): void {
    this.owner.failed(error);
    this.complete();
  }

  complete(): void {
    this.finished = true;
    this.owner.forget(this);
  }
}

class ReplyEach {
  /** Made by the first call that outlives its routing: a one-request connection's synchronous call needs none. */
  private inFlight: Set<CallInFlight> | undefined;
  source: Subscription | undefined;
  private sourceDone = false;
  /** The grace period's timer, while it runs. */
  private graceTimer: Subscription | undefined;
  stopped = false;

  constructor(
    private readonly subscriber: Subscriber<JsonRpcResponse>,
    private readonly onSourceEnd: OnSourceEnd,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  next(routed: Encoded): void {
    if (this.stopped) return;
    if (!isReplyStream(routed)) {
      this.subscriber.next(routed);
      return;
    }
    const call = new CallInFlight(this);
    // Opened, not subscribed: a reply's FirstReply needs no RxJS Subscriber in between (reply-stream.ts).
    call.subscription = openSource(routed, call);
    if (!call.finished) (this.inFlight ??= new Set()).add(call);
  }

  /** A connection's inbound failing is its peer gone, at once, grace or not; one message's failing is passed on. */
  error(error: unknown): void {
    if (this.onSourceEnd !== 'drain') {
      this.sourceDone = true;
      this.end();
      return;
    }
    this.stop();
    this.subscriber.error(error);
  }

  complete(): void {
    this.sourceDone = true;
    const onEnd = this.onSourceEnd;
    if (onEnd === 'cancel') {
      this.end();
      return;
    }
    if (onEnd !== 'drain') onEnd.starting();
    if (this.stopped || this.inFlight === undefined || this.inFlight.size === 0) {
      this.end();
      return;
    }
    if (onEnd !== 'drain') this.graceTimer = onEnd.scheduler.schedule(() => this.end(), onEnd.ms) as Subscription;
  }

  /** Everything still in flight cancelled, and the result complete; once. */
  private end(): void {
    if (this.stopped && this.subscriber.closed) return;
    this.graceTimer?.unsubscribe();
    this.stop();
    this.subscriber.complete();
  }

  reply(reply: JsonRpcResponse): void {
    if (!this.stopped) this.subscriber.next(reply);
  }

  forget(call: CallInFlight): void {
    this.inFlight?.delete(call);
    if (this.sourceDone && !this.stopped && this.inFlight?.size === 0) this.end();
  }

  failed(error: unknown): void {
    this.onFailure(error);
  }

  /** Ends every call in flight (aborted, dropped) and stops reading; idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.source?.unsubscribe();
    if (this.inFlight === undefined) return;
    for (const call of this.inFlight) call.subscription?.unsubscribe();
    this.inFlight.clear();
  }

  /** The result's teardown. */
  unsubscribe(): void {
    this.graceTimer?.unsubscribe();
    this.stop();
  }
}

export function replyEach(onSourceEnd: OnSourceEnd, onFailure: (error: unknown) => void): OperatorFunction<Encoded, JsonRpcResponse> {
  return (source) =>
    new Observable<JsonRpcResponse>((subscriber) => {
      const each = new ReplyEach(subscriber, onSourceEnd, onFailure);
      const inbound = source.subscribe(each);
      // Stopped while subscribing (the source ended at once): nothing more to read.
      if (each.stopped) inbound.unsubscribe();
      else each.source = inbound;
      return each;
    });
}
