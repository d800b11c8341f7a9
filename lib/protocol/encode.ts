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
import { takeFraming } from './framed-result.js';
import { isJsonRpcId, type JsonRpcId, type OutboundMessage } from './jsonrpc.js';

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

/** What JSON.stringify (or a toJSON it called) threw, as text; a thrown oddity is just "not JSON". */
function reasonOf(error: unknown): string {
  try {
    const message = error instanceof Error ? error.message : undefined;
    return typeof message === 'string' ? message : 'not JSON';
  } catch {
    return 'not JSON';
  }
}

/** The reply's id when reading it is safe and it is an id that encodes; else null. */
function idOf(message: OutboundMessage): JsonRpcId {
  try {
    const id = (message as { id?: unknown }).id;
    return isJsonRpcId(id) ? id : null;
  } catch {
    return null;
  }
}

function isReply(message: OutboundMessage): boolean {
  try {
    return typeof message === 'object' && message !== null && 'id' in message && !('method' in message);
  } catch {
    return false;
  }
}

/**
 * A reply whose result is framed (framed-result.ts), written around the
 * result's text, so the fixed members are not serialised again. Only for an
 * object with exactly the own keys `jsonrpc`, `id`, `result` in that order
 * (what resultResponse makes), so the text is the one JSON.stringify would
 * write; undefined for anything else (JSON.stringify then writes it).
 */
function framedReplyText(message: object): string | undefined {
  const framed = takeFraming((message as { result?: unknown }).result);
  if (framed === undefined || Object.getPrototypeOf(message) !== Object.prototype) return undefined;
  if (!hasReplyKeysInOrder(message)) return undefined;
  const { jsonrpc, id } = message as { jsonrpc: unknown; id: unknown };
  if (jsonrpc !== '2.0' || !isJsonRpcId(id)) return undefined;
  const resultText = framed.text();
  return resultText === undefined ? undefined : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`;
}

const REPLY_KEYS = ['jsonrpc', 'id', 'result'] as const;

/** Own enumerable keys exactly `jsonrpc`, `id`, `result`, in that order; read in place (Object.keys would allocate on every reply). */
function hasReplyKeysInOrder(message: object): boolean {
  let at = 0;
  for (const key in message) {
    if (!Object.hasOwn(message, key)) continue;
    if (at === REPLY_KEYS.length || key !== REPLY_KEYS[at]) return false;
    at++;
  }
  return at === REPLY_KEYS.length;
}

/** A message as JSON text; never throws (a reply that cannot be serialised becomes an internal error for its id; `null` for a notification that cannot be sent). */
export function encodeMessage(message: OutboundMessage): string | null {
  try {
    const text = (typeof message === 'object' && message !== null ? framedReplyText(message) : undefined) ?? JSON.stringify(message);
    if (typeof text === 'string') return text;
  } catch (error) {
    if (!isReply(message)) return null;
    const detail = `reply could not be serialised (${reasonOf(error)})`;
    return stringify(internalError(idOf(message), detail)) ?? stringify(internalError(null, detail)) ?? UNSERIALISABLE_REPLY;
  }
  return isReply(message) ? UNSERIALISABLE_REPLY : null;
}
