/**
 * encodeMessage: an outbound message as JSON text for a wire. It never
 * throws, whatever the message holds.
 *
 * A reply that cannot be serialised (a BigInt, a cycle or a structure too
 * deep for the stack in a handler's result) becomes an internal error for
 * the same id, so the request is still answered; when even that fails (an id
 * that does not encode, which the envelope check keeps out) the internal
 * error goes with id null, and past that a constant text. Any other message
 * that cannot be serialised is dropped (null).
 */
import { INTERNAL_ERROR, internalError } from '../errors.js';
import { isJsonRpcId, type OutboundMessage } from './jsonrpc.js';

/** The last resort: written by hand, so nothing can make it fail. */
const UNSERIALISABLE_REPLY = `{"jsonrpc":"2.0","id":null,"error":{"code":${INTERNAL_ERROR},"message":"Internal error: reply could not be serialised"}}`;

function stringify(value: unknown): string | null {
  try {
    const text = JSON.stringify(value);
    // undefined for a value JSON has no text for (a function, a symbol); never a wire message.
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

function reasonOf(error: unknown): string {
  try {
    return error instanceof Error ? error.message : 'not JSON';
  } catch {
    return 'not JSON';
  }
}

function isReply(message: OutboundMessage): boolean {
  try {
    return typeof message === 'object' && message !== null && 'id' in message && !('method' in message);
  } catch {
    return false;
  }
}

export function encodeMessage(message: OutboundMessage): string | null {
  try {
    const text = JSON.stringify(message);
    if (typeof text === 'string') return text;
  } catch (error) {
    if (!isReply(message)) return null;
    const id = (message as { id?: unknown }).id;
    const detail = `reply could not be serialised (${reasonOf(error)})`;
    return (
      (isJsonRpcId(id) ? stringify(internalError(id, detail)) : null) ?? stringify(internalError(null, detail)) ?? UNSERIALISABLE_REPLY
    );
  }
  return isReply(message) ? UNSERIALISABLE_REPLY : null;
}
