/**
 * dispatch: one inbound message to at most one reply.
 *
 * The returned Observable emits exactly once (the reply, or `null` where the
 * contract answers nothing) and completes, or completes without a value when
 * the client cancels the request with notifications/cancelled. Unsubscribing
 * it is cancellation: every worker under it aborts, every parked call under
 * it is dropped, and no late reply can follow.
 */
import { of, type Observable } from 'rxjs';
import { methodNotFound } from '../lib/errors.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { firstReply } from './cancellation.js';
import { classifyMessage } from './classify-message.js';
import { METHODS, UNCANCELLABLE } from './methods/index.js';
import type { Origin, RequestScope, ServerCore } from './server-core.js';

const NO_REPLY: Observable<null> = of(null);

function onNotification(core: ServerCore, origin: Origin, method: string, params: Record<string, unknown> | undefined): void {
  if (method === 'notifications/cancelled' && params !== undefined && params.requestId !== undefined) {
    core.cancellations.cancel(origin.connId, params.requestId);
  }
  // notifications/initialized and anything unknown need no action.
}

export function dispatch(core: ServerCore, message: unknown, origin: Origin): Observable<JsonRpcResponse | null> {
  const classified = classifyMessage(message);
  switch (classified.kind) {
    case 'invalid':
      return of(classified.reply);
    case 'drop':
      return NO_REPLY;
    case 'response':
      // An answer to nothing we asked, or from a connection that did not own the question, is ignored.
      if (!core.parking.answer(origin.connId, classified.id, classified.message)) {
        core.clientRequests.answer(origin.connId, classified.id, classified.message);
      }
      return NO_REPLY;
    case 'notification':
      onNotification(core, origin, classified.method, classified.params);
      return NO_REPLY;
    case 'request': {
      const handler = METHODS.get(classified.method);
      if (handler === undefined) return of(methodNotFound(classified.id, classified.method));
      const scope: RequestScope = {
        connId: origin.connId,
        transport: origin.transport,
        peer: origin.peer,
        ...(origin.principal === undefined ? {} : { principal: origin.principal }),
        mode: origin.mode,
        id: classified.id,
        method: classified.method,
        params: classified.params,
      };
      const reply$ = handler(core, scope);
      if (UNCANCELLABLE.has(scope.method)) return firstReply(reply$);
      return firstReply(reply$, { table: core.cancellations, connId: scope.connId, requestId: scope.id });
    }
  }
}
