/**
 * route: each decided message to what answers it. A request goes to its
 * era's method (methods/tables.ts), whose reply stream is what comes out:
 * that method's own stages (admit and work in a worker, authorize, park or
 * ask, run) inside, its era's encoding and the call's telemetry around it
 * (request-reply.ts, call-telemetry.ts). An invalid message or an unknown
 * method comes out as its error reply. A response answers a question this
 * connection was asked (a parked call's elicitation, a handler's client
 * request) and a notification may cancel a request: both are acted on here
 * and nothing comes out, like a message to drop.
 *
 * It never throws: a method that throws while building its reply is a server
 * bug kept to its request, answered with an internal error and logged.
 *
 * ```
 * decided:  --r-----x-----n-----u--|    r tools/call, x invalid, n notifications/cancelled, u unknown/method
 * result:   --R-----X-----------U--|    R the call's reply stream, X x's error, U -32601
 * ```
 */
import type { Observable, OperatorFunction } from 'rxjs';
import { methodNotFound } from '../../lib/errors.js';
import { isJsonRpcId, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { withCallTelemetry } from '../call-telemetry.js';
import type { DecidedRequest } from '../../lib/protocol/classified.js';
import { ERAS } from '../methods/tables.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import { RequestReply } from '../request-reply.js';
import type { Origin, RequestScope, ServerCore } from '../state/server-core.js';
import type { Incoming } from './incoming.js';
import { perMessage } from './per-message.js';

/** A request's reply stream: one reply (null where the contract answers nothing), or nothing if the client cancels it. */
export type ReplyStream = Observable<JsonRpcResponse | null>;

/** What route hands on: a reply now, or a request's reply stream. */
export type Routed = JsonRpcResponse | ReplyStream;

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

/**
 * Written out, not spread: V8 copies a literal with a conditional spread on
 * a slow path. `principal` and `modern` are absent, not undefined, when
 * there is none (the call context and telemetry say "no principal" by
 * absence); four literals keep each scope one of four shapes.
 */
function requestScope(origin: Origin, request: DecidedRequest): RequestScope {
  const { connId, transport, peer, principal, mode } = origin;
  const { id, method, params, era, modern } = request;
  if (principal === undefined) {
    return modern === undefined
      ? { connId, transport, peer, mode, id, method, params, era }
      : { connId, transport, peer, mode, id, method, params, era, modern };
  }
  return modern === undefined
    ? { connId, transport, peer, principal, mode, id, method, params, era }
    : { connId, transport, peer, principal, mode, id, method, params, era, modern };
}

function requestReply(core: ServerCore, origin: Origin, request: DecidedRequest, message: unknown): Routed {
  const era = ERAS[request.era];
  const handler = era.methods.get(request.method);
  if (handler === undefined) return methodNotFound(request.id, request.method);
  const scope = requestScope(origin, request);
  const reply$ = handler(core, scope);
  const first$ = new RequestReply(reply$, core, scope, era.encode, !era.uncancellable.has(scope.method));
  return withCallTelemetry(core, scope, message, first$);
}

/** What answers `incoming` (its `decided` filled by decideEra), or undefined: nothing to answer. */
export function routeIncoming(core: ServerCore, incoming: Incoming): Routed | undefined {
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
