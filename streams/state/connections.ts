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
import type { Principal } from '../../lib/auth/principal.js';
import type { ConnId, TransportKind } from '../../lib/context.js';
import type { LogLevel } from '../../lib/log-levels.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';

/** What `resourceSubscriptions` reads as before a connection's first URI (never written). */
const NO_URIS: ReadonlySet<string> = new Set();

/**
 * One live connection. Its push channel, background work and URI set are
 * made on first use: a stateless HTTP request is a connection of its own,
 * and most never subscribe, park or get a push from outside their reply.
 */
export class ConnectionState {
  subscribers = 0;
  logLevel: LogLevel = 'debug';
  #uris: Set<string> | undefined;
  #pushes: Subject<OutboundMessage> | undefined;
  #receiver: ((message: OutboundMessage) => void) | undefined;
  #background: Subscription | undefined;
  #ended = false;

  constructor(
    readonly connId: ConnId,
    readonly transport: TransportKind,
    /** The connection's owner key, its fairness key (lib/auth/owner-key.ts): its principal's, else its peer's, else the connection id. */
    readonly peer: string,
    /** The verified caller of this connection, fixed by the first attach that had one. */
    readonly principal: Principal | undefined,
  ) {}

  /** The URIs this connection subscribed; change it through Connections.subscribeResource / unsubscribeResource. */
  get resourceSubscriptions(): ReadonlySet<string> {
    return this.#uris ?? NO_URIS;
  }

  /** Messages for this connection only (elicitation requests, pushed replies); completes when the connection ends. */
  get pushes(): Observable<OutboundMessage> {
    if (this.#pushes === undefined) {
      this.#pushes = new Subject();
      if (this.#ended) this.#pushes.complete();
    }
    return this.#pushes;
  }

  /** Work whose reply is pushed rather than returned; ends with the connection (added once it has ended, it ends at once). */
  get background(): Subscription {
    this.#background ??= this.#ended ? Subscription.EMPTY : new Subscription();
    return this.#background;
  }

  /**
   * `receive` gets this connection's pushes until `unreceive(receive)` or the
   * end, like a subscriber to `pushes` without the subscription: a
   * connection's first receiver, before anyone subscribed to `pushes`, takes
   * a slot of its own (a one-request connection's only one); any other is
   * subscribed. Pushes reach receivers in the order they came.
   */
  receive(receive: (message: OutboundMessage) => void): Subscription | undefined {
    if (this.#receiver === undefined && this.#pushes === undefined && !this.#ended) {
      this.#receiver = receive;
      return undefined;
    }
    return this.pushes.subscribe(receive);
  }

  /** Ends what `receive` started: `subscription` is what it returned. */
  unreceive(receive: (message: OutboundMessage) => void, subscription: Subscription | undefined): void {
    if (subscription !== undefined) subscription.unsubscribe();
    else if (this.#receiver === receive) this.#receiver = undefined;
  }

  /** @internal Connections.push. */
  deliver(message: OutboundMessage): void {
    this.#receiver?.(message);
    this.#pushes?.next(message);
  }

  /** @internal Connections' bookkeeping: whether the URI set changed. */
  addUri(uri: string): boolean {
    this.#uris ??= new Set();
    if (this.#uris.has(uri)) return false;
    this.#uris.add(uri);
    return true;
  }

  /** @internal */
  deleteUri(uri: string): boolean {
    return this.#uris?.delete(uri) ?? false;
  }

  /** @internal The last subscriber left: background work ends, pushes complete; returns how many URIs it held. */
  end(): number {
    this.#ended = true;
    const uris = this.#uris?.size ?? 0;
    this.#uris?.clear();
    this.#receiver = undefined;
    this.#background?.unsubscribe();
    this.#pushes?.complete();
    return uris;
  }
}

/** One live connection as `server.connections$` shows it. */
export interface ConnectionInfo {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  /** Its owner key (the principal's, else the peer's, else the connection id). */
  readonly peer: string;
  readonly principal?: Principal;
}

function infoOf(state: ConnectionState): ConnectionInfo {
  const { connId, transport, peer, principal } = state;
  return principal === undefined ? { connId, transport, peer } : { connId, transport, peer, principal };
}

export class Connections {
  private readonly live = new Map<ConnId, ConnectionState>();
  private readonly exitSubject = new Subject<ConnId>();
  private readonly changeSubject = new Subject<void>();
  private subscriptionCount = 0;

  readonly exits$: Observable<ConnId> = this.exitSubject.asObservable();
  /** A connection arrived or left: told only while someone watches (connections$), so a connection pays nothing otherwise. */
  readonly changes$: Observable<void> = this.changeSubject.asObservable();

  /** `onExit`: told of each connection's exit, synchronously, before `exits$` (the server's cleanup, without a subscription). */
  constructor(private readonly onExit: (state: ConnectionState) => void = () => {}) {}

  /** The first attach of a connection fixes its transport, peer and principal; later ones join it. */
  attach(connId: ConnId, transport: TransportKind, peer?: string, principal?: Principal): ConnectionState {
    let state = this.live.get(connId);
    if (state === undefined) {
      state = new ConnectionState(connId, transport, peer ?? connId, principal);
      this.live.set(connId, state);
      if (this.changeSubject.observed) this.changeSubject.next();
    }
    state.subscribers += 1;
    return state;
  }

  /** Detaches one subscriber; the last one out ends the connection's background work. */
  detach(state: ConnectionState): void {
    state.subscribers -= 1;
    if (state.subscribers > 0 || this.live.get(state.connId) !== state) return;
    this.live.delete(state.connId);
    this.subscriptionCount -= state.end();
    this.onExit(state);
    this.exitSubject.next(state.connId);
    if (this.changeSubject.observed) this.changeSubject.next();
  }

  /** The live connections, in the order they arrived. */
  list(): ConnectionInfo[] {
    return [...this.live.values()].map(infoOf);
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
    if (this.live.get(state.connId) !== state) return;
    if (state.addUri(uri)) this.subscriptionCount += 1;
  }

  unsubscribeResource(state: ConnectionState, uri: string): void {
    if (state.deleteUri(uri)) this.subscriptionCount -= 1;
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
    state.deliver(message);
    return true;
  }
}
