/**
 * The server: the composition root. It owns one server's state and offers
 * the entry points: `connect` (the reactive one every streaming transport
 * uses), `serveOne` (a one-request connection), `handleMessage` and
 * `request` (a direct caller's message) all run the one connection spine
 * (connection.ts), and `connect`, `serveOne` and `subscribe` attach a
 * connection the same way (attach).
 */
import {
  Observable,
  Subject,
  Subscription,
  auditTime,
  filter,
  map,
  of,
  race,
  timer,
  type Observer,
} from 'rxjs';
import { auditAllowlist } from './allowlist-audit.js';
import { connection } from './connection.js';
import type { OnSourceEnd } from './stages/reply-each.js';
import { Connections, type ConnectionInfo, type ConnectionState } from './state/connections.js';
import type { EraDecision } from '../lib/protocol/classified.js';
import { defaultEraPolicy, ERA_POLICIES, eraDecisionFor, perMessageEraWith } from './stages/decide-era.js';
import { buildCore } from './state/build-core.js';
import { RequestRef, type ConnectOptions, type HandleMessageOptions, type PendingRequest, type RequestOptions } from './entry-options.js';
import { MODERN_METHODS } from './methods/tables.js';
import { accepts, outbox } from './outbox.js';
import type { ParkedApproval } from './state/parking.js';
import { originOf } from './principal-shapes.js';
import { statsStream, type ServerStats } from './server-stats.js';
import { snapshots } from './snapshots.js';
import type { Origin, ServerCore } from './state/server-core.js';
import { ownerKey } from '../lib/auth/owner-key.js';
import { isPrincipal, type Principal } from '../lib/auth/principal.js';
import { DEFAULT_CONN_ID, type ConnId, type TransportKind } from '../lib/context.js';
import { CallerGoneError, ConfigError } from '../lib/errors.js';
import { busEventOf, isBusEvent, notificationOfBusEvent, type BusEvent } from '../lib/ports/event-bus.js';
import { guardedObserver, logSafely } from '../lib/guarded.js';
import type { ServerEvent } from '../lib/events.js';
import { nonNegativeIntegerOption } from '../lib/option-checks.js';
import { resolveOptions, type ResolvedOptions, type ServerOptions } from '../lib/options.js';
import { notification, type JsonRpcResponse, type OutboundMessage } from '../lib/protocol/jsonrpc.js';
import type { ReadEnvelope } from '../lib/protocol/modern.js';
import type { Registry, RegistryChange } from '../lib/registry.js';


const LIST_CHANGED: Record<RegistryChange, string> = {
  tools: 'notifications/tools/list_changed',
  resources: 'notifications/resources/list_changed',
  prompts: 'notifications/prompts/list_changed',
};

/** What a timed-out handleMessage race emits instead of a reply. */
const GAVE_UP: unique symbol = Symbol('gave up');

/** An MCP server: a registry served under bounds, authorizers and one clock. Every transport is built on `connect`; `handleMessage`, `request` and `serveOne` are the direct entry points. Made by `createServer`. */
export class McpServer {
  readonly registry: Registry;
  readonly events$: Observable<ServerEvent>;
  /**
   * `stats()` over time: at subscription, then sampled every `statsIntervalMs`
   * on the server's scheduler, a value only when a count changed (see
   * server-stats.ts for why sampled).
   */
  readonly stats$: Observable<ServerStats>;
  /** The live connections: the list at subscription, then after each tick in which one arrived or left. */
  readonly connections$: Observable<readonly ConnectionInfo[]>;
  /** The legacy calls parked for an approval: the list at subscription, then after each tick in which it changed. */
  readonly parked$: Observable<readonly ParkedApproval[]>;
  private readonly options: ResolvedOptions;
  private readonly core: ServerCore;
  private readonly connections: Connections;
  private readonly broadcasts = new Subject<OutboundMessage>();
  private readonly outstanding = new Map<RequestRef, { subscription: Subscription; settle: () => void }>();
  private readonly lifetime = new Subscription();
  /** Which of serverInfo's fields the options left to their defaults. */
  private readonly defaultedInfo: { name: boolean; version: boolean };
  /** Principals already checked by isPrincipal: a direct caller passing one per message pays the check once. */
  private readonly checkedPrincipals = new WeakSet<Principal>();

  constructor(options: ServerOptions = {}) {
    this.options = resolveOptions(options);
    this.defaultedInfo = { name: options.name === undefined, version: options.serverVersion === undefined };
    this.registry = this.options.registry;
    this.registry.adoptLogger(this.options.logger);
    const events = new Subject<ServerEvent>();
    this.events$ = events.asObservable();
    this.connections = new Connections((state) => this.connectionGone(state));
    this.core = buildCore(this.options, this.connections, events);
    // An extension that serves resources, tools or prompts registers them before the server serves.
    for (const extension of this.options.extensions) extension.setup?.(this.registry);
    this.stats$ = statsStream(() => this.stats(), this.options.statsIntervalMs, this.options.scheduler);
    this.connections$ = snapshots(this.connections.changes$, () => this.connections.list(), this.options.scheduler);
    this.parked$ = snapshots(this.core.parking.changes$, () => this.core.parking.list(), this.options.scheduler);
    this.lifetime.add(this.hearRemoteEvents());
    // An observable resource's every value, as a resources/updated from this server (and on its event bus).
    this.lifetime.add(this.registry.updates$.subscribe((uri) => this.resourceUpdated(uri)));
    this.lifetime.add(auditAllowlist(this.options));
    for (const kind of Object.keys(LIST_CHANGED) as RegistryChange[]) {
      this.lifetime.add(
        this.registry.changes$
          .pipe(
            filter((change) => change === kind),
            auditTime(0, this.options.scheduler),
          )
          .subscribe(() => this.notify(LIST_CHANGED[kind])),
      );
    }
  }

  /**
   * Whether a modern (2026-07-28) request for `method` has a handler on this
   * server: a built-in method, or one of its extensions'. The Streamable
   * HTTP era classifier answers 404/-32601 for anything else.
   */
  servesModernMethod(method: string): boolean {
    return MODERN_METHODS.has(method) || this.core.extensions.hasModern(method);
  }

  /**
   * The reactive entry point, and the whole contract a transport plugs into
   * (docs/transports.md, "Plugging a transport"; examples/transports/tcp-lines.ts is one
   * written outside the library): one connection's inbound messages in, its
   * outbound messages (replies, its pushes, broadcasts) out.
   *
   * What the transport gives:
   * - `connId`: one per connection, unused by any live one (the same id joins
   *   that connection: its pushes, parked calls and capabilities), and
   *   unguessable on a network, since an elicitation answer is bound to it
   *   (`mintConnId` from rxmcp/transports).
   * - `inbound$`: the messages as JSON.parse gives them, one value per frame.
   *   Framing and decoding are the transport's: a frame that is not JSON is
   *   answered by the transport, `errors.parseError(detail)` (-32700, id
   *   null); anything that parses, however malformed, is the server's to
   *   answer. Completing or failing means the peer is gone.
   * - `options.peer` (the remote address, or a trusted proxy's header) and
   *   `options.principal` (only what its own authenticator verified, made by
   *   makePrincipal): the fairness key and the caller, never read from a
   *   message. `options.transport` is what authorizers see ('unknown' for a
   *   wire rxmcp does not ship: 'stdio', 'ws' and 'sse' also mean the legacy
   *   initialization phase).
   *
   * What the server guarantees back, on the returned Observable:
   * - Nothing happens until it is subscribed; subscribe before reading the
   *   wire, so no reply can be missed.
   * - Each request gets exactly one reply, or none: none for a notification,
   *   a request cancelled (`notifications/cancelled`), or the connection gone.
   *   A parked or long call's reply comes whenever it is ready.
   * - Order: messages come in the order they must be written. Inline methods
   *   are answered in their arrival order; calls that run concurrently are
   *   answered as they finish, each after its own progress notifications.
   * - It never errors and never throws into the transport: bad input is a
   *   JSON-RPC error reply, a failing handler an error result, a reply that
   *   cannot be serialised becomes an internal error (`encodeMessage`). It
   *   completes once the inbound has ended.
   * - No buffering: every message is handed over synchronously as it is made.
   *   Backpressure is the transport's: stop reading the wire while the
   *   write side is full (replies are then bounded by the in-flight caps),
   *   and bound what it holds for a peer that does not read (pushes and
   *   broadcasts are not requests), closing it past the bound.
   *
   * What the transport must not do: throw from its observer (RxJS would
   * rethrow it on a timer, an uncaught exception: catch, log, close).
   *
   * Unsubscribing is the connection's exit: its calls in flight are aborted
   * (their signals fire) and never answered, its parked calls dropped, its
   * listen streams and capabilities gone. To end a connection it can still
   * write to, a transport first calls `cancelListens(connId, reason)`.
   */
  connect(connId: ConnId, inbound$: Observable<unknown>, options: ConnectOptions = {}): Observable<OutboundMessage> {
    const principal = this.checkPrincipal(options.principal);
    if (options.era !== undefined && !ERA_POLICIES.includes(options.era)) {
      throw new ConfigError('era', `era must be one of ${ERA_POLICIES.join(', ')}`);
    }
    const drainMs = nonNegativeIntegerOption('drainMs', options.drainMs, 0);
    return new Observable<OutboundMessage>((subscriber) => {
      const { state, origin } = this.attach(connId, options, principal, (transport) => eraDecisionFor(options.era ?? defaultEraPolicy(transport), transport));
      // A modern connection is sent replies, its requests' notifications and its listen streams only: no broadcasts.
      const pushes = outbox(state, this.broadcasts, () => origin.eraDecision?.pinned !== 'modern').subscribe((message) => subscriber.next(message));
      // The inbound ending is the peer gone: the replies complete, every call still in flight cancelled (after drainMs, if given).
      const onEnd: OnSourceEnd =
        drainMs > 0
          ? { ms: drainMs, scheduler: this.options.scheduler, starting: () => this.core.listens.dropConnection(connId) }
          : 'cancel';
      const replies = inbound$.pipe(connection(this.core, origin, onEnd)).subscribe(subscriber);
      return () => {
        replies.unsubscribe();
        pushes.unsubscribe();
        this.connections.detach(state);
      };
    });
  }

  /**
   * @internal One message on a connection of its own that lasts until the
   * returned function is called (a stateless transport: modern Streamable
   * HTTP makes one per POST). The same as `connect(connId, <message, then
   * open>, { ...options, era: 'per-message' })` without its Observable
   * plumbing, and without broadcasts (a one-request connection is sent none:
   * they are about no request of its). `deliver` gets the reply and the
   * connection's pushes (the request's notifications, its listen stream);
   * what it throws is logged. Ending cancels whatever still runs. `read`:
   * the envelope the transport already read from this message's params,
   * so it is not validated twice.
   */
  serveOne(connId: ConnId, message: unknown, options: ConnectOptions, deliver: (message: OutboundMessage) => void, read?: ReadEnvelope): () => void {
    const principal = this.checkPrincipal(options.principal);
    const { state, origin } = this.attach(connId, options, principal, () => perMessageEraWith(read));
    const logger = this.options.logger;
    const safely = (out: OutboundMessage): void => {
      try {
        deliver(out);
      } catch (err) {
        logSafely(logger, 'error', { err, connId }, 'a message could not be delivered; dropped');
      }
    };
    const receive = (out: OutboundMessage): void => {
      if (accepts(state, out)) safely(out);
    };
    const pushes = state.receive(receive);
    // The one message, then nothing until the exchange ends: its end, not the inbound's, cancels what still runs.
    // (What concat(of(message), NEVER) says, without its four more subscribers a request.)
    const replies = new Observable<unknown>((subscriber) => subscriber.next(message)).pipe(connection(this.core, origin)).subscribe(safely);
    return () => {
      replies.unsubscribe();
      state.unreceive(receive, pushes);
      this.connections.detach(state);
    };
  }

  /**
   * One message, one Promise of its reply (`null` for notifications and for
   * a tools/call parked for elicitation, whose eventual reply is pushed to the
   * connection's subscriber).
   */
  handleMessage(message: unknown, options: HandleMessageOptions = {}): Promise<JsonRpcResponse | null> {
    const connId = options.connId ?? DEFAULT_CONN_ID;
    let origin: Origin;
    try {
      origin = this.directOrigin(connId, 'push', options.principal);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const signal = options.signal;
      if (signal?.aborted) {
        reject(new CallerGoneError('the caller was gone before the call started'));
        return;
      }
      let reply$: Observable<JsonRpcResponse | null | typeof GAVE_UP> = this.replyTo(message, origin);
      const timeoutMs = options.timeoutMs;
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        reply$ = race(reply$, timer(Math.max(0, timeoutMs), this.options.scheduler).pipe(map((): typeof GAVE_UP => GAVE_UP)));
      }
      const onAbort = () => {
        subscription.unsubscribe();
        reject(new CallerGoneError('the caller went away'));
      };
      const subscription = reply$.subscribe({
        next: (reply) => (reply === GAVE_UP ? reject(new CallerGoneError(`no reply within ${timeoutMs} ms`)) : resolve(reply)),
        complete: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(null);
        },
      });
      if (!subscription.closed) signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * The non-blocking form: the reply is the eventual response, even for a
   * parked tools/call. `cancel(ref)` or the signal ends it with a `null`
   * reply.
   */
  request(message: unknown, connId: ConnId = DEFAULT_CONN_ID, options: RequestOptions = {}): PendingRequest {
    const origin = this.directOrigin(connId, 'reply', options.principal);
    const ref = new RequestRef();
    let settleReply!: (reply: JsonRpcResponse | null) => void;
    const reply = new Promise<JsonRpcResponse | null>((resolve) => {
      settleReply = resolve;
    });
    if (options.signal?.aborted) {
      settleReply(null);
      return { reply, ref };
    }
    const onAbort = () => this.cancel(ref);
    const done = () => {
      this.outstanding.delete(ref);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const subscription = this.replyTo(message, origin).subscribe({
      next: (value) => settleReply(value),
      complete: () => {
        done();
        settleReply(null);
      },
    });
    if (!subscription.closed) {
      // done() also drops the listener, so a long-lived signal does not collect one per cancelled request.
      this.outstanding.set(ref, {
        subscription,
        settle: () => {
          done();
          settleReply(null);
        },
      });
      options.signal?.addEventListener('abort', onAbort, { once: true });
    }
    return { reply, ref };
  }

  /** Cancels a request made with `request`: its worker aborts or its parked call is dropped; the reply is `null`. */
  cancel(ref: RequestRef): void {
    const entry = this.outstanding.get(ref);
    if (entry === undefined) return;
    this.outstanding.delete(ref);
    entry.subscription.unsubscribe();
    entry.settle();
  }

  /**
   * Attaches a subscriber for `connId` (default `'default'`): it receives that
   * connection's pushes and the broadcasts. Unsubscribing is the subscriber's
   * exit; the last one out drops the connection's parked calls. What the
   * observer throws is logged and swallowed.
   */
  subscribe(
    observerOrNext: Partial<Observer<OutboundMessage>> | ((message: OutboundMessage) => void),
    connId: ConnId = DEFAULT_CONN_ID,
    options: ConnectOptions = {},
  ): Subscription {
    const principal = this.checkPrincipal(options.principal);
    const { state } = this.attach(connId, options, principal, () => undefined);
    // A throwing observer is logged, never rethrown by RxJS into the process.
    const observer = guardedObserver(this.options.logger, 'server.subscribe', observerOrNext);
    const subscription = outbox(state, this.broadcasts).subscribe(observer);
    subscription.add(() => this.connections.detach(state));
    return subscription;
  }

  /**
   * Sends a notification to every subscribed connection (filtered by level
   * and resource subscriptions). A list change or a resources/updated is
   * also published on the event bus, for the subscriptions/listen streams
   * (and, on a bus shared by several processes, for the other processes'
   * listens and legacy connections). Any other notification stays on this
   * process.
   */
  notify(method: string, params?: Record<string, unknown>): void {
    this.broadcasts.next(notification(method, params));
    const event = busEventOf(method, params);
    if (event !== undefined) this.publish(event);
  }

  /** notifications/resources/updated, to the connections that subscribed `uri` only. */
  resourceUpdated(uri: string): void {
    this.notify('notifications/resources/updated', { uri });
  }

  /**
   * Whether a caller CHOSE this server's tool authorization. A framework's
   * fallback (authorizerSource "default", the default) answers false however
   * strict it is, so the network boot guards still force a decision.
   */
  authorizationConfigured(): boolean {
    return this.options.authorizerSource === 'configured' && this.options.authorizer !== null;
  }

  /** Whether the read seam has an authorizer at all. */
  readAuthorizationConfigured(): boolean {
    return this.options.readAuthorizer !== null;
  }

  /** Counts of what the server holds: for health checks and leak tests. */
  stats(): ServerStats {
    return {
      inFlight: this.core.admission.inFlight(),
      parked: this.core.parking.parkedCount(),
      approvalTickets: this.core.approvals.ledger.outstanding?.() ?? 0,
      tasks: this.core.tasks?.outstanding() ?? 0,
      taskRuns: this.core.tasks?.runs.size ?? 0,
      connections: this.connections.size,
      capabilityEntries: this.core.capabilities.size,
      outstandingRequests: this.outstanding.size,
      pendingClientRequests: this.core.clientRequests.size,
      resourceSubscriptions: this.connections.subscriptions,
      listens: this.core.listens.size,
    };
  }

  /**
   * Fills serverInfo's `name` and `version` where the options left them to
   * rxmcp's own defaults (the CLI passes the served module's package.json
   * name and version); a value the options gave is kept.
   */
  setServerInfoDefaults(info: { readonly name?: string; readonly version?: string }): void {
    if (this.defaultedInfo.name && typeof info.name === 'string' && info.name !== '') this.options.name = info.name;
    if (this.defaultedInfo.version && typeof info.version === 'string' && info.version !== '') this.options.serverVersion = info.version;
  }

  get scheduler() {
    return this.options.scheduler;
  }

  get logger() {
    return this.options.logger;
  }

  /**
   * For a transport about to end, on its own initiative, a connection it can
   * still write to (stdio `close()`, a WebSocket the server closes): each of
   * the connection's open subscriptions/listen streams ends with
   * `notifications/cancelled` naming it (and `reason`), pushed to the
   * connection now, and gets no reply. A connection already gone needs
   * nothing: its streams end when it is unsubscribed.
   */
  cancelListens(connId: ConnId, reason: string): void {
    this.core.listens.cancelConnection(connId, reason);
  }

  /**
   * Ends everything the server holds on its own account, so a process whose
   * transports are closed has nothing left running: every subscriptions/listen
   * stream gets its graceful result; every parked call its deny (`the server
   * is shutting down`), and every approval ticket of this process goes with
   * its expiry timer (new asks of either era are denied the same; a shared
   * store keeps its tickets for the other processes); outstanding `request`s
   * are cancelled; the registry and event-bus listeners stop. Connections are
   * ended by their own subscribers: a tool still running on one finishes, or
   * ends with its connection. Idempotent.
   */
  close(): void {
    this.core.listens.shutdown();
    this.lifetime.unsubscribe();
    for (const ref of [...this.outstanding.keys()]) this.cancel(ref);
    this.core.parking.close();
    this.core.approvals.ledger.close?.();
    this.core.tasks?.close();
  }

  /**
   * A bus shared by several processes (one with subscribeRemote) delivers the
   * four events other processes published; they go to this process's legacy
   * connections as the notification a local notify would have sent. The
   * bus keeps this process's own publishes out of it, so each reaches a
   * connection once: local ones through notify, remote ones through here.
   */
  private hearRemoteEvents(): Subscription {
    const bus = this.options.eventBus;
    if (typeof bus.subscribeRemote !== 'function') return Subscription.EMPTY;
    try {
      const unsubscribe = bus.subscribeRemote((event: unknown) => {
        // A task's status is for the listen streams that named it, never a broadcast.
        if (!isBusEvent(event) || event.type === 'task_status') return;
        const { method, params } = notificationOfBusEvent(event);
        this.broadcasts.next(notification(method, params));
      });
      return new Subscription(() => {
        try {
          if (typeof unsubscribe === 'function') unsubscribe();
        } catch (err) {
          logSafely(this.options.logger, 'error', { err }, 'the event bus threw on unsubscribe');
        }
      });
    } catch (err) {
      logSafely(this.options.logger, 'error', { err }, 'the event bus threw on subscribeRemote: legacy connections hear this process only');
      return Subscription.EMPTY;
    }
  }

  /** A bus that throws must not take the publisher (a registry change, a caller of notify) with it. */
  private publish(event: BusEvent): void {
    try {
      this.options.eventBus.publish(event);
    } catch (err) {
      logSafely(this.options.logger, 'error', { err, event: event.type }, 'the event bus threw on publish');
    }
  }

  /**
   * A connection's exit (until close): its advertised capabilities, listen
   * streams and approval tickets go. Tickets held by a connection (stdio,
   * WebSocket, memory) cannot be redeemed once it is gone; HTTP holders are
   * peers. A ledger that can drop synchronously (the in-memory one) is asked
   * so, without an Observable per exit.
   */
  private connectionGone(state: ConnectionState): void {
    if (this.lifetime.closed) return;
    const { connId } = state;
    this.core.capabilities.delete(connId);
    this.core.listens.dropConnection(connId);
    // Tasks only this connection could reach (no principal, no peer: stdio, in memory) are cancelled with it.
    this.core.tasks?.connectionGone(connId);
    const ledger = this.core.approvals.ledger;
    if (ledger.dropHolderNow !== undefined) {
      ledger.dropHolderNow(connId);
      return;
    }
    // A store's round trip holds a timeout on the scheduler until it answers: close() ends the wait.
    const drop = ledger.dropHolder(connId).subscribe();
    if (drop.closed) return;
    this.lifetime.add(drop);
    drop.add(() => this.lifetime.remove(drop));
  }

  /**
   * The one attach behind connect, serveOne and subscribe: the connection's
   * state (live while attached; its owner key by the identity rule, see
   * lib/auth/owner-key.ts) and the origin its requests carry.
   */
  private attach(
    connId: ConnId,
    options: ConnectOptions,
    principal: Principal | undefined,
    eraDecision: (transport: TransportKind) => EraDecision | undefined,
  ): { state: ConnectionState; origin: Origin } {
    const state = this.connections.attach(connId, options.transport ?? this.options.transport, ownerKey(principal, options.peer, connId), principal);
    const { peer, transport } = state;
    const origin = originOf(connId, transport, peer, state.principal, 'reply', eraDecision(transport));
    return { state, origin };
  }

  /** A direct caller's one message through the connection's spine: its reply (null: none), or nothing if cancelled. */
  private replyTo(message: unknown, origin: Origin): Observable<JsonRpcResponse> {
    return of(message).pipe(connection(this.core, origin, 'drain'));
  }

  /**
   * Where a direct caller's message comes from: the connection's transport,
   * peer and principal, unless the caller names a principal for this message
   * (then it is also the fairness key).
   */
  private directOrigin(connId: ConnId, mode: Origin['mode'], given: Principal | undefined): Origin {
    const explicit = this.checkPrincipal(given);
    const state = this.connections.get(connId);
    const transport = state?.transport ?? this.options.transport;
    if (explicit !== undefined) return originOf(connId, transport, ownerKey(explicit, undefined, connId), explicit, mode, undefined);
    return originOf(connId, transport, state?.peer ?? connId, state?.principal, mode, undefined);
  }

  /** Only a principal makePrincipal made (frozen, its key matching its identity) enters the pipeline. */
  private checkPrincipal(principal: Principal | undefined): Principal | undefined {
    if (principal === undefined || this.checkedPrincipals.has(principal)) return principal;
    if (!isPrincipal(principal)) throw new TypeError('principal must be a Principal made by makePrincipal');
    this.checkedPrincipals.add(principal);
    return principal;
  }
}


/** Creates a server from its options (all optional; a bad value throws a `ConfigError` naming it). It refuses to start with a sensitive tool and no authorizer. */
export function createServer(options: ServerOptions = {}): McpServer {
  return new McpServer(options);
}
