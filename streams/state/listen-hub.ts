/**
 * ListenHub: the server's open subscriptions/listen streams, their bounds,
 * and the one subscription to the event bus that feeds them all.
 *
 * - `open` checks every bound and registers the stream in one synchronous
 *   step (no two listens can both pass a check meant for one): the server is
 *   not closing, the id is not already a subscription on that connection, at
 *   most `maxListensPerConnection` per connection and `maxListens` on the
 *   server, and the filter's URIs fit `maxSubscriptionsPerConnection` (summed
 *   over the connection's listens) and `maxSubscriptionsTotal` (shared with
 *   the legacy resources/subscribe URIs).
 * - An event reaches only the streams whose honoured filter takes it (an
 *   index per list kind and per URI, so a resources/updated costs its own
 *   subscribers, not every stream).
 * - The bus is subscribed while at least one stream is open, and not at
 *   all otherwise.
 * - `dropConnection` ends a gone connection's streams without a word;
 *   `cancelConnection` ends a live connection's streams with
 *   notifications/cancelled (its transport is about to end it);
 *   `shutdown` ends every stream gracefully and refuses new ones.
 */
import type { ConnId } from '../../lib/context.js';
import { isBusEvent, type BusEvent, type ListChangedEventType, type ServerEventBus } from '../../lib/ports/event-bus.js';
import { logSafely } from '../../lib/guarded.js';
import type { Logger } from '../../lib/logger.js';
import type { JsonRpcId } from '../../lib/protocol/jsonrpc.js';
import type { ListenFilter } from '../listen-filter.js';
import { addToIndex, removeFromIndex } from '../../lib/set-index.js';

/** What one open stream does with what the hub tells it. */
export interface ListenSink {
  /** An event its filter takes. */
  deliver(event: BusEvent): void;
  /** The server ends the stream gracefully (shutdown). */
  end(): void;
  /** The connection is gone: the stream ends without a word. */
  drop(): void;
  /** The server tears the stream down on a connection that still carries output: notifications/cancelled, no reply. */
  cancel(reason: string): void;
}

export interface ListenLimits {
  readonly maxListens: number;
  readonly maxListensPerConnection: number;
  readonly maxUrisPerConnection: number;
  readonly maxUrisTotal: number;
}

export type ListenRefusalReason =
  | 'server_closing'
  | 'subscription_id_in_use'
  | 'too_many_subscriptions'
  | 'too_many_resource_subscriptions'
  | 'event_bus_failed';

export interface ListenRefusal {
  readonly reason: ListenRefusalReason;
  readonly message: string;
  /** Which bound: one connection's or the server's. */
  readonly scope?: 'connection' | 'server';
  readonly max?: number;
}

export class ListenEntry {
  open = true;
  constructor(
    readonly connId: ConnId,
    readonly id: JsonRpcId,
    readonly filter: ListenFilter,
    readonly sink: ListenSink,
  ) {}

  get uriCount(): number {
    return this.filter.resourceSubscriptions?.length ?? 0;
  }
}

interface ConnectionListens {
  readonly byId: Map<JsonRpcId, ListenEntry>;
  uris: number;
}

const FLAG_OF: Readonly<Record<ListChangedEventType, keyof ListenFilter>> = {
  tools_list_changed: 'toolsListChanged',
  prompts_list_changed: 'promptsListChanged',
  resources_list_changed: 'resourcesListChanged',
};

export class ListenHub {
  private readonly connections = new Map<ConnId, ConnectionListens>();
  private readonly byKind = new Map<ListChangedEventType, Set<ListenEntry>>();
  private readonly byUri = new Map<string, Set<ListenEntry>>();
  private readonly byTask = new Map<string, Set<ListenEntry>>();
  private count = 0;
  private uriCount = 0;
  private unsubscribeBus: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly bus: ServerEventBus,
    private readonly limits: ListenLimits,
    private readonly logger: Logger,
    /** resources/subscribe URIs held on the legacy side, counted against the same server total. */
    private readonly legacyUris: () => number,
  ) {}

  /** Open streams. */
  get size(): number {
    return this.count;
  }

  /** Resource URIs the open streams hold. */
  get uris(): number {
    return this.uriCount;
  }

  open(connId: ConnId, id: JsonRpcId, filter: ListenFilter, sink: ListenSink): ListenEntry | ListenRefusal {
    const refusal = this.refusal(connId, id, filter);
    if (refusal !== null) return refusal;
    if (this.unsubscribeBus === undefined && !this.subscribeBus()) {
      return { reason: 'event_bus_failed', message: 'subscriptions are unavailable: the event bus refused a subscriber' };
    }
    const entry = new ListenEntry(connId, id, filter, sink);
    let mine = this.connections.get(connId);
    if (mine === undefined) {
      mine = { byId: new Map(), uris: 0 };
      this.connections.set(connId, mine);
    }
    mine.byId.set(id, entry);
    mine.uris += entry.uriCount;
    this.count += 1;
    this.uriCount += entry.uriCount;
    for (const [kind, flag] of Object.entries(FLAG_OF) as [ListChangedEventType, keyof ListenFilter][]) {
      if (filter[flag] === true) addToIndex(this.byKind, kind, entry);
    }
    for (const uri of filter.resourceSubscriptions ?? []) addToIndex(this.byUri, uri, entry);
    for (const taskId of filter.taskIds ?? []) addToIndex(this.byTask, taskId, entry);
    return entry;
  }

  /** Forgets a stream (its own teardown); idempotent. */
  close(entry: ListenEntry): void {
    if (!entry.open) return;
    entry.open = false;
    const mine = this.connections.get(entry.connId);
    if (mine !== undefined && mine.byId.get(entry.id) === entry) {
      mine.byId.delete(entry.id);
      mine.uris -= entry.uriCount;
      if (mine.byId.size === 0) this.connections.delete(entry.connId);
    }
    this.count -= 1;
    this.uriCount -= entry.uriCount;
    for (const kind of Object.keys(FLAG_OF) as ListChangedEventType[]) removeFromIndex(this.byKind, kind, entry);
    for (const uri of entry.filter.resourceSubscriptions ?? []) removeFromIndex(this.byUri, uri, entry);
    for (const taskId of entry.filter.taskIds ?? []) removeFromIndex(this.byTask, taskId, entry);
    if (this.count === 0) this.releaseBus();
  }

  /** The connection is gone: its streams end without a reply. */
  dropConnection(connId: ConnId): void {
    const mine = this.connections.get(connId);
    if (mine === undefined) return;
    for (const entry of [...mine.byId.values()]) {
      this.close(entry);
      this.safely(() => entry.sink.drop(), 'a listen stream failed to end');
    }
  }

  /** The connection is about to be ended by its transport: its streams end with notifications/cancelled. */
  cancelConnection(connId: ConnId, reason: string): void {
    const mine = this.connections.get(connId);
    if (mine === undefined) return;
    for (const entry of [...mine.byId.values()]) {
      this.close(entry);
      this.safely(() => entry.sink.cancel(reason), 'a listen stream failed to end');
    }
  }

  /** Every stream ends with its graceful result; later listens are refused. */
  shutdown(): void {
    this.closed = true;
    const entries = [...this.connections.values()].flatMap((mine) => [...mine.byId.values()]);
    for (const entry of entries) this.safely(() => entry.sink.end(), 'a listen stream failed to end');
    // A sink that failed to unregister itself is forgotten here, so nothing stays counted.
    for (const entry of entries) this.close(entry);
  }

  private refusal(connId: ConnId, id: JsonRpcId, filter: ListenFilter): ListenRefusal | null {
    if (this.closed) return { reason: 'server_closing', message: 'the server is shutting down' };
    const mine = this.connections.get(connId);
    if (mine?.byId.has(id) === true) {
      return { reason: 'subscription_id_in_use', message: 'a subscription with this id is already open on this connection' };
    }
    const { maxListens, maxListensPerConnection, maxUrisPerConnection, maxUrisTotal } = this.limits;
    if ((mine?.byId.size ?? 0) >= maxListensPerConnection) {
      return bound('too_many_subscriptions', 'subscriptions', 'connection', maxListensPerConnection);
    }
    if (this.count >= maxListens) return bound('too_many_subscriptions', 'subscriptions', 'server', maxListens);
    const uris = filter.resourceSubscriptions?.length ?? 0;
    if (uris === 0) return null;
    if ((mine?.uris ?? 0) + uris > maxUrisPerConnection) {
      return bound('too_many_resource_subscriptions', 'resource subscriptions', 'connection', maxUrisPerConnection);
    }
    if (this.uriCount + this.legacyUris() + uris > maxUrisTotal) {
      return bound('too_many_resource_subscriptions', 'resource subscriptions', 'server', maxUrisTotal);
    }
    return null;
  }

  private readonly onEvent = (event: unknown): void => {
    // A foreign bus may deliver anything; only the four known events go on.
    if (!isBusEvent(event)) return;
    const targets =
      event.type === 'resource_updated' ? this.byUri.get(event.uri) : event.type === 'task_status' ? this.byTask.get(event.taskId) : this.byKind.get(event.type);
    if (targets === undefined) return;
    for (const entry of [...targets]) {
      if (entry.open) this.safely(() => entry.sink.deliver(event), 'a listen stream failed to deliver an event');
    }
  };

  private subscribeBus(): boolean {
    try {
      const unsubscribe = this.bus.subscribe(this.onEvent);
      this.unsubscribeBus = typeof unsubscribe === 'function' ? unsubscribe : () => {};
      return true;
    } catch (err) {
      logSafely(this.logger, 'error', { err }, 'the event bus threw on subscribe: subscriptions/listen refused');
      return false;
    }
  }

  private releaseBus(): void {
    const unsubscribe = this.unsubscribeBus;
    this.unsubscribeBus = undefined;
    if (unsubscribe !== undefined) this.safely(unsubscribe, 'the event bus threw on unsubscribe');
  }

  private safely(action: () => void, message: string): void {
    try {
      action();
    } catch (err) {
      logSafely(this.logger, 'error', { err }, message);
    }
  }
}

function bound(reason: ListenRefusalReason, what: string, scope: 'connection' | 'server', max: number): ListenRefusal {
  return { reason, message: `too many ${what} on this ${scope} (max ${max})`, scope, max };
}
