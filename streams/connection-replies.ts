/**
 * ConnectionReplies: one connection's inbound messages, each dispatched as
 * it arrives (inline methods answer in order, callback methods run
 * concurrently), their replies handed out as they come. The inbound
 * completing or failing is the peer gone: every call in flight ends at once.
 *
 * What mergeMap does, written out: a call in flight holds one small object
 * here instead of an operator subscriber and its closures, and a thousand
 * calls may be in flight on one connection.
 *
 * An AuthenticatedMessage (a transport that verifies each request) runs
 * under its own principal, which must have the connection's principal key;
 * one with another key, or on a connection without a principal, is dropped.
 */
import type { Observable, Subscription, Unsubscribable } from 'rxjs';
import { AuthenticatedMessage } from '../lib/auth/authenticated.js';
import type { Principal } from '../lib/auth/principal.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { openSource } from './direct-source.js';
import { dispatch } from './dispatch.js';
import type { Origin, ServerCore } from './state/server-core.js';

/**
 * `origin` under another principal. Written out, not `{ ...origin, principal }`:
 * V8 takes a slow path (about a microsecond) on a spread followed by more
 * properties, and an authenticated transport does this per request.
 */
function withPrincipalOf(origin: Origin, principal: Principal): Origin {
  const { connId, transport, peer, mode, eraDecision } = origin;
  return eraDecision === undefined ? { connId, transport, peer, principal, mode } : { connId, transport, peer, principal, mode, eraDecision };
}

class CallInFlight {
  finished = false;
  subscription: Unsubscribable | undefined;

  constructor(private readonly owner: ConnectionReplies) {}

  next(reply: JsonRpcResponse | null): void {
    if (reply !== null) this.owner.reply(reply);
  }

  error(error: unknown): void {
    // dispatch answers bad input itself; an error here is a server bug, kept to this one call.
    this.owner.failed(error);
    this.complete();
  }

  complete(): void {
    this.finished = true;
    this.owner.forget(this);
  }
}

export class ConnectionReplies {
  /** Made by the first call that outlives its dispatch: a one-request connection's synchronous call needs none. */
  private inFlight: Set<CallInFlight> | undefined;
  private inbound: Subscription | undefined;
  private stopped = false;

  constructor(
    private readonly core: ServerCore,
    private readonly origin: Origin,
    private readonly onReply: (reply: JsonRpcResponse) => void,
    private readonly onPeerGone: () => void,
  ) {}

  start(inbound$: Observable<unknown>): void {
    this.inbound = inbound$.subscribe(this);
  }

  /** An inbound message (this is the inbound's observer). */
  next(message: unknown): void {
    if (this.stopped) return;
    let origin = this.origin;
    if (message instanceof AuthenticatedMessage) {
      if (message.principal.key !== origin.principal?.key) {
        this.core.options.logger.error({ connId: origin.connId }, 'a message authenticated as another principal than its connection was dropped');
        return;
      }
      if (message.principal !== origin.principal) origin = withPrincipalOf(origin, message.principal);
      message = message.message;
    }
    const call = new CallInFlight(this);
    // Opened, not subscribed: a reply's FirstReply needs no RxJS Subscriber in between (direct-source.ts).
    call.subscription = openSource(dispatch(this.core, message, origin), call);
    if (!call.finished) (this.inFlight ??= new Set()).add(call);
  }

  error(): void {
    this.peerGone();
  }

  complete(): void {
    this.peerGone();
  }

  /** Ends every call in flight (aborted, dropped) and stops reading; idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.inbound?.unsubscribe();
    if (this.inFlight === undefined) return;
    for (const call of this.inFlight) call.subscription?.unsubscribe();
    this.inFlight.clear();
  }

  reply(reply: JsonRpcResponse): void {
    if (!this.stopped) this.onReply(reply);
  }

  forget(call: CallInFlight): void {
    this.inFlight?.delete(call);
  }

  failed(error: unknown): void {
    this.core.options.logger.error({ connId: this.origin.connId, err: error }, 'a call failed inside the pipeline');
  }

  private peerGone(): void {
    this.stop();
    this.onPeerGone();
  }
}
