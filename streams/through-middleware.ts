/**
 * A call through the server's middleware stages: the method's own work as a
 * reply stream that starts only when a stage subscribes it (so a stage that
 * answers by itself never runs the handler), wrapped by each stage, first
 * stage outermost, and read as one Eventual reply by the worker around it.
 *
 * The worker keeps the contract whatever the stages do: the first reply is
 * the one taken; an error, or completing with no reply (or with something
 * that is not one), is a crash; never answering runs into the callback
 * timeout; unsubscription (every cancellation) travels down to the handler.
 */
import { defer, isObservable, take, type Observable } from 'rxjs';
import type { AdmittedCall, CallReply, CallStage } from '../lib/middleware/types.js';
import { errorResponse, isPlainObject, resultResponse, type JsonRpcId, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { Later, toObservable, type Eventual } from './eventual.js';

function rethrow(error: unknown): never {
  throw error;
}

function isErrorObject(value: unknown): boolean {
  return isPlainObject(value) && typeof value.code === 'number' && typeof value.message === 'string';
}

function checkedReply(last: unknown): CallReply {
  if (isPlainObject(last) && (isErrorObject(last.error) || (last.error === undefined && isPlainObject(last.result)))) {
    return last as CallReply;
  }
  throw new TypeError(
    'a middleware stage completed without a reply, or with something that is not one ({ result: object } or { error: { code, message } })',
  );
}

export function throughMiddleware(stages: readonly CallStage[], call: AdmittedCall, work: () => Eventual<CallReply>): Eventual<CallReply> {
  let reply$: Observable<CallReply> = defer(() => toObservable(work()));
  for (let i = stages.length - 1; i >= 0; i--) {
    const staged: unknown = stages[i]!(call)(reply$);
    if (!isObservable(staged)) throw new TypeError(`middleware stage ${i} did not return an Observable for ${call.method}`);
    reply$ = staged as Observable<CallReply>;
  }
  return new Later<CallReply>(reply$.pipe(take(1)), checkedReply, rethrow);
}

/** The reply as the response to `id` (a stage may hand back a reply kept from another call). */
export function responseOf(id: JsonRpcId, reply: CallReply): JsonRpcResponse {
  return reply.error !== undefined ? errorResponse(id, reply.error) : resultResponse(id, reply.result);
}

/** A response that came through the stages, told apart from a tool's own result by its class. */
export class StagedResponse {
  constructor(readonly response: JsonRpcResponse) {}
}
