/**
 * A stage that threw or failed while handling a message: a server bug, kept
 * to that one message. It is logged here (with the error, which may name
 * internals) and a request is answered with an internal error that does not.
 */
import { internalError } from '../lib/errors.js';
import { logSafely } from '../lib/guarded.js';
import type { JsonRpcId, JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import type { ServerCore } from './state/server-core.js';

export function reportPipelineFailure(core: ServerCore, connId: string, error: unknown): void {
  logSafely(core.options.logger, 'error', { connId, err: error }, 'a message failed inside the pipeline');
}

/** The reply to a request whose handling failed. */
export function pipelineFailure(core: ServerCore, connId: string, id: JsonRpcId, error: unknown): JsonRpcResponse {
  reportPipelineFailure(core, connId, error);
  return internalError(id, 'the server failed while handling this request');
}
