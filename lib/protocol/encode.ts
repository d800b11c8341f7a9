/**
 * encodeMessage: an outbound message as JSON text for a wire. It never
 * throws, whatever the message holds.
 *
 * A reply that cannot be serialised (a BigInt, a cycle or a structure too
 * deep for the stack in a handler's result) becomes an internal error for
 * the same id, so the request is still answered; when even that fails (an id
 * that does not encode, which the envelope check keeps out) the internal
 * error goes with id null, and past that a constant text. Any other message
 * that cannot be serialised is dropped (null). A modern result's fixed
 * members are written as pre-encoded text around the rest (FramedResult,
 * below): the encoding of one reply, in one file.
 */
import { INTERNAL_ERROR, internalError } from '../errors.js';
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
 * A reply whose result is framed (below), written around the
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

/*
 * A result whose wire text is mostly known in advance: fixed members before
 * and after the members of a body object (a modern result is the handler's
 * result with `resultType` first and the server's `_meta` last), so
 * encodeMessage writes the fixed parts as text and serialises only the body.
 *
 * The result object everyone sees holds every member, as always. The
 * framing is remembered beside it, for the one result framed last: a reply
 * is encoded in the turn its result is framed, before the next one is;
 * anything else (a reply encoded later, a copy) is found unframed and
 * serialised in full, to the same text. Not a symbol property on the
 * result: defining a hidden one costs more than the framing saves, and a
 * visible one would show in equality checks and spreads.
 *
 * The framer promises that `head`, then the body's members, then `tail`, as
 * JSON, is the JSON of the result while it holds exactly the body's members
 * (same values) and the `fixed` ones (same values); text() checks that
 * before using the frame, so a result changed since is serialised in full.
 */
export class FramedResult {
  /**
   * `head` and `tail`: the `fixed` members as JSON text (`"key":value`,
   * comma-separated, never empty); `fixed` should be frozen, as its values
   * are compared by identity only.
   */
  constructor(
    readonly result: object,
    readonly head: string,
    readonly body: object,
    readonly tail: string,
    readonly fixed: Readonly<Record<string, unknown>>,
  ) {}

  /** The result's JSON text; undefined when the result changed since it was framed, or the body is not an object in JSON. */
  text(): string | undefined {
    if (!this.#unchanged()) return undefined;
    const body = JSON.stringify(this.body);
    if (typeof body !== 'string' || body.charCodeAt(0) !== 0x7b) return undefined;
    return body.length === 2 ? `{${this.head},${this.tail}}` : `{${this.head},${body.slice(1, -1)},${this.tail}}`;
  }

  /** Cheap for the few members a result has: every body and fixed member still there, nothing else. */
  #unchanged(): boolean {
    const result = this.result as Record<string, unknown>;
    const body = this.body as Record<string, unknown>;
    let expected = 0;
    for (const key in body) {
      if (!Object.hasOwn(body, key)) continue;
      // JSON.stringify writes integer-like keys first, before `head`'s: a key starting with a digit is written in full.
      const first = key.charCodeAt(0);
      if ((first >= 0x30 && first <= 0x39) || result[key] !== body[key]) return false;
      expected++;
    }
    for (const key in this.fixed) {
      if (result[key] !== this.fixed[key]) return false;
      expected++;
    }
    for (const key in result) if (Object.hasOwn(result, key)) expected--;
    return expected === 0;
  }
}

let last: FramedResult | undefined;

/** Remembers `framed` for its result, in place of the one before. */
export function frame(framed: FramedResult): void {
  last = framed;
}

/** The framing of `result` when it is the one framed last; used once. */
export function takeFraming(result: unknown): FramedResult | undefined {
  const framed = last;
  if (framed === undefined || framed.result !== result) return undefined;
  last = undefined;
  return framed;
}
