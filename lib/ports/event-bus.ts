/**
 * The event bus: what changed on the server, as events rather than wire
 * messages, so the subscriptions/listen stage (which filters, tags and
 * bounds them per subscription) can live apart from whoever publishes, and
 * a deployment of several processes can swap the in-memory bus for one over
 * its pub/sub (each process's listens then hear every process's changes).
 *
 * Contract of any bus:
 * - `publish` never throws into the publisher and delivers each event to
 *   every listener subscribed at that moment (on another process too, for a
 *   shared bus);
 * - `subscribe` returns the unsubscribe function; after it is called the
 *   listener hears nothing more;
 * - a listener that throws does not stop the others.
 *
 * A bus shared by several processes may also offer `subscribeRemote`: the
 * events published by OTHER processes (other bus instances) only, never this
 * one's own. The server feeds its legacy connections from it (list_changed to
 * each, resources/updated to those that subscribed the URI), because their
 * copy of a local notify already went out directly; so a bus that offers it
 * must keep its own publishes out of it. With a bus that lacks it (the
 * in-memory one), a notify reaches the notifying server's legacy connections
 * only, even when other servers share the bus; their listens hear it.
 */
import { logSafely } from '../guarded.js';
import { stderrLogger, type Logger } from '../logger.js';
import { isPlainObject } from '../protocol/jsonrpc.js';

/** The list-changed events of the bus. */
export type ListChangedEventType = 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed';

/** An event legacy connections are sent as a notification: a list change, or a resource updated. */
export type BroadcastEvent = { readonly type: ListChangedEventType } | { readonly type: 'resource_updated'; readonly uri: string };

/**
 * An event of the bus: a broadcast one, or a task's status changed (tasks
 * extension: only the subscriptions/listen streams that named the task hear
 * it, each reading the task from the store and checking its owner).
 */
export type BusEvent = BroadcastEvent | { readonly type: 'task_status'; readonly taskId: string };

/** Longest task id a bus event may carry. */
const MAX_BUS_TASK_ID = 256;

/** A subscriber of the bus. */
export type BusListener = (event: BusEvent) => void;

/** Where list changes and resource updates are published and heard (the `eventBus` option); share one across servers or processes to share the changes. */
export interface ServerEventBus {
  /** Sends an event to every listener (and, on a shared bus, to the other processes). */
  publish(event: BusEvent): void;
  /** Returns the function that ends this subscription (idempotent). */
  subscribe(listener: BusListener): () => void;
  /** Optional: events other processes published (never this bus's own); returns the unsubscribe function. */
  subscribeRemote?(listener: BusListener): () => void;
}

/** Options of `InMemoryEventBus`. */
export interface InMemoryEventBusOptions {
  /** Where a throwing listener is reported; default pino on stderr (see lib/logger.ts). */
  readonly logger?: Logger | undefined;
}

/**
 * One process's bus: synchronous (a publish has reached every listener when
 * it returns), in subscription order. A listener subscribed during a
 * delivery hears the next event, not this one; one unsubscribed during a
 * delivery hears nothing more, even if it was still to be called.
 */
export class InMemoryEventBus implements ServerEventBus {
  private readonly listeners = new Set<BusListener>();
  private logger: Logger | undefined;

  constructor(options: InMemoryEventBusOptions = {}) {
    this.logger = options.logger;
  }

  /** Calls every listener synchronously; one that throws is logged and does not stop the others. */
  publish(event: BusEvent): void {
    if (this.listeners.size === 0) return;
    for (const listener of [...this.listeners]) {
      if (!this.listeners.has(listener)) continue;
      try {
        listener(event);
      } catch (err) {
        logSafely((this.logger ??= stderrLogger()), 'error', { err, event: event.type }, 'an event bus listener threw');
      }
    }
  }

  subscribe(listener: BusListener): () => void {
    // A Set keeps one entry per function: subscribing the same function twice gets its own entry by wrapping.
    const entry: BusListener = this.listeners.has(listener) ? (event) => listener(event) : listener;
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Listeners subscribed now (for tests and leak checks). */
  get size(): number {
    return this.listeners.size;
  }
}

export function isServerEventBus(value: unknown): value is ServerEventBus {
  const bus = value as ServerEventBus;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof bus.publish === 'function' &&
    typeof bus.subscribe === 'function' &&
    (bus.subscribeRemote === undefined || typeof bus.subscribeRemote === 'function')
  );
}

const LIST_CHANGED_BY_METHOD: Readonly<Record<string, ListChangedEventType>> = {
  'notifications/tools/list_changed': 'tools_list_changed',
  'notifications/prompts/list_changed': 'prompts_list_changed',
  'notifications/resources/list_changed': 'resources_list_changed',
};

export const LIST_CHANGED_METHOD: Readonly<Record<ListChangedEventType, string>> = {
  tools_list_changed: 'notifications/tools/list_changed',
  prompts_list_changed: 'notifications/prompts/list_changed',
  resources_list_changed: 'notifications/resources/list_changed',
};

/** The event a server notification stands for, or undefined when it is none of the four the bus carries. */
export function busEventOf(method: string, params: Record<string, unknown> | undefined): BusEvent | undefined {
  const listChanged = Object.hasOwn(LIST_CHANGED_BY_METHOD, method) ? LIST_CHANGED_BY_METHOD[method] : undefined;
  if (listChanged !== undefined) return { type: listChanged };
  if (method === 'notifications/resources/updated' && typeof params?.uri === 'string') return { type: 'resource_updated', uri: params.uri };
  return undefined;
}

/** The notification a server sends its legacy connections for `event`: what notify(method, { uri }) sends. */
export function notificationOfBusEvent(event: BroadcastEvent): { readonly method: string; readonly params?: Record<string, unknown> } {
  return event.type === 'resource_updated'
    ? { method: 'notifications/resources/updated', params: { uri: event.uri } }
    : { method: LIST_CHANGED_METHOD[event.type] };
}

/** Whether a value a (foreign) bus delivered is an event this server knows; anything else is ignored. */
export function isBusEvent(value: unknown): value is BusEvent {
  if (!isPlainObject(value)) return false;
  if (value.type === 'resource_updated') return typeof value.uri === 'string';
  if (value.type === 'task_status') return typeof value.taskId === 'string' && value.taskId.length <= MAX_BUS_TASK_ID;
  return typeof value.type === 'string' && Object.hasOwn(LIST_CHANGED_METHOD, value.type);
}
