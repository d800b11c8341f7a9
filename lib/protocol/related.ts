/**
 * Which request an outbound message belongs to (progress, log lines and
 * server-to-client requests made while serving it), carried on the message
 * itself under a symbol key: JSON.stringify never sees it, and a transport
 * that can route by request (Streamable HTTP's per-POST streams) reads it.
 */
import type { JsonRpcId } from './jsonrpc.js';

const RELATED_REQUEST = Symbol.for('rxmcp.relatedRequest');

export function withRelatedRequest<T extends object>(message: T, requestId: JsonRpcId): T {
  Object.defineProperty(message, RELATED_REQUEST, { value: requestId, enumerable: false });
  return message;
}

/** The id of the request a message was produced for, if any. */
export function relatedRequestOf(message: object): JsonRpcId | undefined {
  return (message as { [RELATED_REQUEST]?: JsonRpcId })[RELATED_REQUEST];
}
