/**
 * dispatch: one inbound message to at most one reply.
 *
 * The returned stream (a ReplyStream: a request's is a RequestReply, a
 * DirectSource that ConnectionReplies opens without a Subscriber in
 * between; asObservable makes it an Observable) emits exactly once (the
 * reply, or `null` where the contract answers nothing; its FirstReply keeps
 * that) and completes, or completes without a value when the client cancels
 * the request with notifications/cancelled. Ending it early is
 * cancellation: every worker under it aborts, every parked call under it is
 * dropped, and no late reply can follow.
 *
 * It never throws and its stream never fails: a stage that throws, at
 * once or later, is a server bug contained to its own request, which is
 * answered with an internal error (logged, details never sent), so no input
 * can take a connection, let alone the process, down with it.
 */
import { of, type Observable } from 'rxjs';
import { methodNotFound } from '../lib/errors.js';
import { isJsonRpcId, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { withCallTelemetry } from './call-telemetry.js';
import type { ReplyStream } from './direct-source.js';
import { classifyMessage } from './classify-message.js';
import { perMessageEra, type Decided, type DecidedRequest } from './era-decision.js';
import { ERAS } from './methods/tables.js';
import { pipelineFailure, reportPipelineFailure } from './pipeline-failure.js';
import { RequestReply } from './request-reply.js';
import type { Origin, RequestScope, ServerCore } from './state/server-core.js';

const NO_REPLY: Observable<null> = of(null);

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

export function dispatch(core: ServerCore, message: unknown, origin: Origin): ReplyStream<JsonRpcResponse | null> {
  let classified: Decided;
  try {
    classified = (origin.eraDecision ?? perMessageEra()).decide(classifyMessage(message));
  } catch (error) {
    // Only a direct caller's object can make the envelope check throw (a getter, a Proxy).
    return of(pipelineFailure(core, origin.connId, null, error));
  }
  try {
    return route(core, classified, origin, message);
  } catch (error) {
    if (classified.kind === 'request') return of(pipelineFailure(core, origin.connId, classified.id, error));
    reportPipelineFailure(core, origin.connId, error);
    return NO_REPLY;
  }
}

function route(core: ServerCore, classified: Decided, origin: Origin, message: unknown): ReplyStream<JsonRpcResponse | null> {
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
      const era = ERAS[classified.era];
      const handler = era.methods.get(classified.method);
      if (handler === undefined) return of(methodNotFound(classified.id, classified.method));
      const scope = requestScope(origin, classified);
      const reply$ = handler(core, scope);
      const first$ = new RequestReply(reply$, core, scope, era.encode, !era.uncancellable.has(scope.method));
      return withCallTelemetry(core, scope, message, first$);
    }
  }
}
