/**
 * encodeMessage: an outbound message as JSON text for a wire. A reply that
 * cannot be serialised (a BigInt, a cycle in a handler's result) becomes an
 * internal error for the same id, so the request is still answered; any
 * other message that cannot be serialised is dropped (null).
 */
import { internalError } from '../errors.js';
import type { JsonRpcId, OutboundMessage } from './jsonrpc.js';

export function encodeMessage(message: OutboundMessage): string | null {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if ('id' in message && !('method' in message)) {
      return JSON.stringify(internalError(message.id as JsonRpcId, `reply could not be serialised (${(error as Error).message})`));
    }
    return null;
  }
}
