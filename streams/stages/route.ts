/**
 * route: each decided message to what answers it. A request goes to its
 * era's method (methods/tables.ts, then the server's extensions'), and comes
 * out as a RoutedRequest: its scope and the stream its method returned
 * (that method's own stages inside: for a user's callback a worker that
 * admits and works it, and for tools/call authorize, then run, deny or park
 * an ask). The encode stage makes it a reply. An invalid message or an
 * unknown method comes out as its error reply. A response answers a question
 * this connection was asked (a parked call's elicitation, a handler's client
 * request) and a notification may cancel a request: both are acted on here
 * and nothing comes out, like a message to drop.
 *
 * It never throws: a method that throws while building its reply stream is a
 * server bug kept to its request, answered with an internal error and logged.
 *
 * ```
 * decided:  --r-----x-----n-----u--|    r tools/call, x invalid, n notifications/cancelled, u unknown/method
 * result:   --R-----X-----------U--|    R r's RoutedRequest, X x's error, U -32601
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import { methodNotFound } from '../../lib/errors.js';
import { isJsonRpcId, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { ReplyStream } from '../reply-stream.js';
import type { DecidedRequest } from '../../lib/protocol/classified.js';
import { ERAS } from '../methods/tables.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import { scopeOf } from '../principal-shapes.js';
import type { Origin, RequestScope, ServerCore } from '../state/server-core.js';
import { type Incoming, perMessage } from './incoming.js';

/** A request and the stream its method returned for it, which the encode stage makes its reply. */
export class RoutedRequest {
  constructor(
    readonly scope: RequestScope,
    /** The message as it came (telemetry measures it). */
    readonly message: unknown,
    readonly replies: ReplyStream<JsonRpcResponse | null>,
  ) {}
}

/** What route hands on: a reply now, or a routed request. */
export type Routed = JsonRpcResponse | RoutedRequest;

function onNotification(core: ServerCore, origin: Origin, method: string, params: Record<string, unknown> | undefined): void {
  // Only an id a request can have names one; anything else (a nested structure, a boolean) is dropped.
  if (method === 'notifications/cancelled' && params !== undefined && isCancellableId(params.requestId)) {
    core.cancellations.cancel(origin.connId, params.requestId);
  }
  // notifications/initialized and anything unknown need no action.
}

function isCancellableId(value: unknown): value is string | number {
  return value !== null && isJsonRpcId(value);
}

function requestReply(core: ServerCore, origin: Origin, request: DecidedRequest, message: unknown): Routed {
  const era = ERAS[request.era];
  // The era's built-in method first (an extension may not shadow one), then the server's extensions'.
  const handler = era.methods.get(request.method) ?? core.extensions.method(request.era, request.method);
  if (handler === undefined) return methodNotFound(request.id, request.method);
  const scope = scopeOf(origin, request);
  return new RoutedRequest(scope, message, handler(core, scope));
}

/** What answers `incoming` (its `decided` filled by decideEra), or undefined: nothing to answer. */
function routeIncoming(core: ServerCore, incoming: Incoming): Routed | undefined {
  const decided = incoming.decided!;
  const origin = incoming.origin;
  try {
    switch (decided.kind) {
      case 'invalid':
        return decided.reply;
      case 'drop':
        return undefined;
      case 'response':
        // An answer to nothing we asked, or from a connection that did not own the question, is ignored.
        if (!core.parking.answer(origin.connId, decided.id, decided.message)) {
          core.clientRequests.answer(origin.connId, decided.id, decided.message);
        }
        return undefined;
      case 'notification':
        onNotification(core, origin, decided.method, decided.params);
        return undefined;
      case 'request':
        return requestReply(core, origin, decided, incoming.message);
    }
  } catch (error) {
    if (decided.kind === 'request') return pipelineFailure(core, origin.connId, decided.id, error);
    reportPipelineFailure(core, origin.connId, error);
    return undefined;
  }
}

export function route(core: ServerCore): OperatorFunction<Incoming, Routed> {
  return perMessage(
    (incoming: Incoming) => routeIncoming(core, incoming),
    (error) => reportPipelineFailure(core, '', error),
  );
}
