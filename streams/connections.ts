/**
 * Connections: the live subscribers, one entry per connection id while at
 * least one subscriber is attached. An entry holds what only makes sense
 * while something can receive pushes: the log level, the resource
 * subscriptions, the push channel and the work parked on its behalf. The last
 * subscriber leaving is the connection's exit, announced on `exits$`.
 *
 * Resource subscriptions are counted across connections here, where they are
 * added and where a leaving connection's go with it, so the server-wide cap
 * is one number kept in one place.
 */
import { Subject, Subscription, filter, map, take, type Observable } from 'rxjs';
import type { Principal } from '../lib/auth/principal.js';
import type { ConnId, TransportKind } from '../lib/context.js';
import type { LogLevel } from '../lib/log-levels.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';

export interface ConnectionState {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  /** The fairness key of the remote peer (see ConnectOptions.peer); the connection id when none was given. */
  readonly peer: string;
  /** The verified caller of this connection, fixed by the first attach that had one. */
  readonly principal: Principal | undefined;
  subscribers: number;
  logLevel: LogLevel;
  /** The URIs this connection subscribed; change it through Connections.subscribeResource / unsubscribeResource. */
  readonly resourceSubscriptions: Set<string>;
  /** Messages for this connection only (elicitation requests, pushed replies). */
  readonly pushes: Subject<OutboundMessage>;
  /** Work whose reply is pushed rather than returned; ends with the connection. */
  readonly background: Subscription;
}

export class Connections {
  private readonly live = new Map<ConnId, ConnectionState>();
  private readonly exitSubject = new Subject<ConnId>();
  private subscriptionCount = 0;

  readonly exits$: Observable<ConnId> = this.exitSubject.asObservable();

  /** The first attach of a connection fixes its transport, peer and principal; later ones join it. */
  attach(connId: ConnId, transport: TransportKind, peer?: string, principal?: Principal): ConnectionState {
    let state = this.live.get(connId);
    if (state === undefined) {
      state = {
        connId,
        transport,
        peer: peer ?? connId,
        principal,
        subscribers: 0,
        logLevel: 'debug',
        resourceSubscriptions: new Set(),
        pushes: new Subject(),
        background: new Subscription(),
      };
      this.live.set(connId, state);
    }
    state.subscribers += 1;
    return state;
  }

  /** Detaches one subscriber; the last one out ends the connection's background work. */
  detach(state: ConnectionState): void {
    state.subscribers -= 1;
    if (state.subscribers > 0 || this.live.get(state.connId) !== state) return;
    this.live.delete(state.connId);
    this.subscriptionCount -= state.resourceSubscriptions.size;
    state.resourceSubscriptions.clear();
    state.background.unsubscribe();
    state.pushes.complete();
    this.exitSubject.next(state.connId);
  }

  get(connId: ConnId): ConnectionState | undefined {
    return this.live.get(connId);
  }

  isLive(connId: ConnId): boolean {
    return this.live.has(connId);
  }

  get size(): number {
    return this.live.size;
  }

  /** Resource subscriptions held across every live connection. */
  get subscriptions(): number {
    return this.subscriptionCount;
  }

  subscribeResource(state: ConnectionState, uri: string): void {
    if (this.live.get(state.connId) !== state || state.resourceSubscriptions.has(uri)) return;
    state.resourceSubscriptions.add(uri);
    this.subscriptionCount += 1;
  }

  unsubscribeResource(state: ConnectionState, uri: string): void {
    if (state.resourceSubscriptions.delete(uri)) this.subscriptionCount -= 1;
  }

  /** Emits once when `connId`'s last subscriber leaves. */
  exitOf(connId: ConnId): Observable<void> {
    return this.exits$.pipe(
      filter((id) => id === connId),
      take(1),
      map(() => undefined),
    );
  }

  /** Pushes to `connId`'s subscribers; false when it has none. */
  push(connId: ConnId, message: OutboundMessage): boolean {
    const state = this.live.get(connId);
    if (state === undefined) return false;
    state.pushes.next(message);
    return true;
  }
}
