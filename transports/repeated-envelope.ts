/**
 * RepeatedEnvelopeParser: JSON.parse for one connection's messages that
 * parses a modern client's `params._meta` once instead of on every request.
 *
 * A 2026-07-28 client sends the same envelope (protocol version, client
 * capabilities, client info) on every request of a stdio or WebSocket
 * connection: about 190 of a small request's 310 bytes, the biggest share
 * of what the modern era costs over the legacy one there. The parser
 * remembers the last envelope's exact text and its parsed value; a line
 * holding that text in the one place it can be read without doubt is parsed
 * with `0` in its place, and the remembered value is put back.
 *
 * The result is always what JSON.parse of the whole line gives (or the same
 * throw), because the shortcut is taken only when all of these hold:
 * - the line has no backslash, so every `"` delimits a string and every key
 *   is spelled literally;
 * - `_meta"` occurs once outside the remembered text, as `"_meta":` right
 *   before it: then the line has one `_meta` key at most, and the value
 *   after its colon is the remembered text (a complete JSON value);
 * - the line parses with `null` in that value's place (swapping one complete
 *   value for another changes neither the syntax nor any other value) and
 *   `params._meta` is that null, which places the one `_meta` key in `params`.
 *   Not `0`: a number is not complete on its own (`0e5`, `0.0` read on), so
 *   `{...}e5` would parse where JSON.parse throws; nothing can follow `null`.
 * Anything else is parsed in full.
 *
 * Only a modern claim is remembered (a `_meta` with a string
 * `io.modelcontextprotocol/protocolVersion`), written exactly as
 * JSON.stringify writes it and at most MAX_REMEMBERED_CHARS long; nothing
 * changes for legacy traffic. The remembered value is the parse of that text,
 * not the line's own `_meta`: the two differ where JSON.stringify does not
 * round-trip (`1e400` is written `null`, `-0` is written `0`), and the text
 * may have been found elsewhere in the line. It is deep-frozen, since
 * every request that repeats it shares it (`ctx.meta` is read-only).
 * A client whose `_meta` differs on every request (a progress token, a
 * trace id) costs a failed comparison per line, and a re-read of its
 * envelope only on the 1st, 2nd, 4th, 8th... line in a row that missed.
 */
import { isPlainObject } from '../lib/protocol/jsonrpc.js';
import { MODERN_META } from '../lib/protocol/modern.js';

/** Longest envelope text remembered: real ones are a few hundred characters. */
export const MAX_REMEMBERED_CHARS = 4096;

const QUOTE = 0x22;
const COLON = 0x3a;
/** `"_meta":` is 8 characters; its value starts right after. */
const META_KEY_LENGTH = 8;

interface Remembered {
  readonly text: string;
  readonly value: Record<string, unknown>;
}

export class RepeatedEnvelopeParser {
  #remembered: Remembered | undefined;
  /** Lines in a row whose envelope was not the remembered one. */
  #misses = 0;

  /** JSON.parse(text), with the remembered envelope reused where it repeats; throws where JSON.parse throws. */
  readonly parse = (text: string): unknown => {
    const remembered = this.#remembered;
    if (remembered !== undefined) {
      const repeated = parseRepeating(text, remembered);
      if (repeated !== undefined) {
        this.#misses = 0;
        return repeated;
      }
    }
    const message: unknown = JSON.parse(text);
    const misses = ++this.#misses;
    // Powers of two only: a client that never repeats pays for a few re-reads, not one per line.
    if ((misses & (misses - 1)) === 0) this.#learn(text, message);
    return message;
  };

  #learn(text: string, message: unknown): void {
    const meta = modernMetaOf(message);
    if (meta === undefined) return;
    let metaText: string;
    try {
      metaText = JSON.stringify(meta);
    } catch {
      return;
    }
    if (metaText.length > MAX_REMEMBERED_CHARS || !text.includes(`"_meta":${metaText}`)) return;
    const value = JSON.parse(metaText) as Record<string, unknown>;
    // The count runs on until a line repeats it: a client whose envelope never repeats stays on the backoff.
    this.#remembered = { text: metaText, value: deepFreeze(value) };
  }
}

/** The parsed line when it repeats `remembered` (see the conditions above); undefined to parse it in full. */
function parseRepeating(text: string, remembered: Remembered): unknown {
  const key = text.indexOf('_meta"') - 1;
  if (key < 0 || text.charCodeAt(key) !== QUOTE || text.charCodeAt(key + 7) !== COLON) return undefined;
  const valueStart = key + META_KEY_LENGTH;
  const valueEnd = valueStart + remembered.text.length;
  if (text.slice(valueStart, valueEnd) !== remembered.text) return undefined;
  if (text.indexOf('\\') !== -1 || text.indexOf('_meta"', valueEnd) !== -1) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(`${text.slice(0, valueStart)}null${text.slice(valueEnd)}`);
  } catch {
    return undefined;
  }
  if (!isPlainObject(message)) return undefined;
  const params = message.params;
  if (!isPlainObject(params) || params._meta !== null) return undefined;
  params._meta = remembered.value;
  return message;
}

function modernMetaOf(message: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(message)) return undefined;
  const params = message.params;
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  return isPlainObject(meta) && typeof meta[MODERN_META.protocolVersion] === 'string' ? meta : undefined;
}

/** Freezes a parsed JSON value and everything in it, without recursion (its depth is the client's choice). */
function deepFreeze<T extends object>(root: T): T {
  const pending: object[] = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    Object.freeze(next);
    for (const child of Object.values(next)) {
      if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) pending.push(child);
    }
  }
  return root;
}
