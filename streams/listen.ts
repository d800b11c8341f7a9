/**
 * listenStream: one subscriptions/listen stream (MCP 2026-07-28), as the
 * Observable of its one reply.
 *
 * Subscribing opens the stream in the ListenHub (all bounds checked there in
 * one step; a refusal is the reply at once, and nothing was sent). Then, on
 * the connection's push channel:
 * 1. `notifications/subscriptions/acknowledged` with the honoured filter,
 *    always the first message of the stream;
 * 2. each bus event the honoured filter takes, as its wire notification.
 * Every one of them carries `_meta["io.modelcontextprotocol/subscriptionId"]`
 * = the listen request's id, and the request it belongs to (so Streamable
 * HTTP can put it on that request's stream). Nothing request-scoped
 * (progress, log lines) ever goes on it: no handler runs for a listen.
 *
 * The reply stays outstanding for the stream's life and holds no worker.
 * How it ends:
 * - unsubscribed (notifications/cancelled naming the listen id, the caller
 *   or the connection gone): nothing more is sent for it, not even a reply;
 * - the server shuts down: the reply is the graceful close
 *   `{ resultType: "complete", _meta: { subscriptionId } }`;
 * - a transport ends, on its own initiative, a connection it can still
 *   write to (McpServer.cancelListens): `notifications/cancelled` naming
 *   the listen id goes out on the connection, and no reply (2026-07-28,
 *   basic/patterns/cancellation: "A server MUST send notifications/cancelled
 *   referencing a subscriptions/listen request ID when it tears down that
 *   subscription stream");
 * - the connection's last subscriber leaves: it ends with no reply.
 */
import { Observable, type Subscriber } from 'rxjs';
import { LIST_CHANGED_METHOD, type BroadcastEvent, type BusEvent } from '../lib/ports/event-bus.js';
import { invalidParams, invalidRequest, listenRefused } from '../lib/errors.js';
import { notification, resultResponse, type JsonRpcId, type JsonRpcNotification, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { withRelatedRequest } from '../lib/protocol/related.js';
import { ACKNOWLEDGED_METHOD, markListenMessage, SUBSCRIPTION_ID_META } from '../lib/protocol/subscription.js';
import type { ListenFilter } from './listen-filter.js';
import { ListenEntry, type ListenRefusal, type ListenSink } from './state/listen-hub.js';
import type { RequestScope, ServerCore } from './state/server-core.js';

/** The graceful close of a listen stream: its reply when the server ends it. */
export function listenClosed(id: JsonRpcId): JsonRpcResponse {
  return resultResponse(id, { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META]: id } });
}

/** The non-graceful end of a listen stream the server tears down: the one notifications/cancelled a server may send. */
export function listenCancelled(id: JsonRpcId, reason: string): JsonRpcNotification {
  return streamMessage(id, 'notifications/cancelled', { requestId: id, reason });
}

/** A message of the stream `id`: tagged in `_meta`, marked for the outbox and for per-request routing. */
function streamMessage(id: JsonRpcId, method: string, params: Record<string, unknown>): JsonRpcNotification {
  const message = notification(method, { _meta: { [SUBSCRIPTION_ID_META]: id }, ...params });
  return markListenMessage(withRelatedRequest(message, id), id);
}

export function listenNotification(id: JsonRpcId, event: BroadcastEvent): JsonRpcNotification {
  if (event.type === 'resource_updated') return streamMessage(id, 'notifications/resources/updated', { uri: event.uri });
  return streamMessage(id, LIST_CHANGED_METHOD[event.type], {});
}

function refusalReply(id: JsonRpcId, refusal: ListenRefusal): JsonRpcResponse {
  const data: Record<string, unknown> = { error: refusal.reason };
  if (refusal.scope !== undefined) data.scope = refusal.scope;
  if (refusal.max !== undefined) data.max = refusal.max;
  switch (refusal.reason) {
    case 'subscription_id_in_use':
      return invalidRequest(id, `Invalid Request: ${refusal.message}`);
    case 'too_many_resource_subscriptions':
      return invalidParams(id, refusal.message, data);
    default:
      return listenRefused(id, refusal.message, data);
  }
}

/** One open stream: what the hub calls. Events before the acknowledgement has gone out are not its to send. */
class ActiveListen implements ListenSink {
  private acknowledged = false;
  private ended = false;

  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly subscriber: Subscriber<JsonRpcResponse>,
  ) {}

  acknowledge(filter: ListenFilter): void {
    this.core.connections.push(this.scope.connId, streamMessage(this.scope.id, ACKNOWLEDGED_METHOD, { notifications: filter }));
    this.acknowledged = true;
  }

  deliver(event: BusEvent): void {
    if (!this.acknowledged || this.ended) return;
    if (event.type === 'task_status') {
      this.deliverTask(event.taskId);
      return;
    }
    this.core.connections.push(this.scope.connId, listenNotification(this.scope.id, event));
  }

  /** notifications/tasks: the task as tasks/get would show it now, when it is this stream's owner's. */
  private deliverTask(taskId: string): void {
    this.core.tasks?.detailedFor(taskId, this.scope.peer).subscribe({
      next: (task) => {
        if (task !== undefined && !this.ended) this.core.connections.push(this.scope.connId, streamMessage(this.scope.id, 'notifications/tasks', task));
      },
      error: (err: unknown) => this.core.options.logger.warn({ err, taskId }, 'a task status notification could not read its task'),
    });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.subscriber.next(listenClosed(this.scope.id));
    this.subscriber.complete();
  }

  drop(): void {
    if (this.ended) return;
    this.ended = true;
    this.subscriber.complete();
  }

  cancel(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.core.connections.push(this.scope.connId, listenCancelled(this.scope.id, reason));
    this.subscriber.complete();
  }

  /** Unsubscribed: whatever the hub still holds for it goes silent. */
  stop(): void {
    this.ended = true;
  }
}

export function listenStream(core: ServerCore, scope: RequestScope, filter: ListenFilter): Observable<JsonRpcResponse> {
  return new Observable<JsonRpcResponse>((subscriber) => {
    if (!core.connections.isLive(scope.connId)) {
      subscriber.next(listenRefused(scope.id, 'no live connection to deliver the subscription to', { error: 'not_connected' }));
      subscriber.complete();
      return undefined;
    }
    const listen = new ActiveListen(core, scope, subscriber);
    const opened = core.listens.open(scope.connId, scope.id, filter, listen);
    if (!(opened instanceof ListenEntry)) {
      subscriber.next(refusalReply(scope.id, opened));
      subscriber.complete();
      return undefined;
    }
    listen.acknowledge(filter);
    return () => {
      listen.stop();
      core.listens.close(opened);
    };
  });
}
