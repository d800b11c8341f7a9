/**
 * Newline-delimited JSON, one message a line: decoding a line's bytes into
 * a message (or the reason it is not one) and encoding a message as a line.
 * Decoding never throws: invalid UTF-8 and invalid JSON are answers, and a
 * blank line is nothing at all (peers may pad between messages).
 */
import { encodeMessage } from '../lib/protocol/encode.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';

export type DecodedLine =
  | { readonly kind: 'message'; readonly message: unknown }
  | { readonly kind: 'blank' }
  | { readonly kind: 'undecodable'; readonly detail: string };

const BLANK: DecodedLine = { kind: 'blank' };

/** Strict: a wrong byte is an undecodable line, not a U+FFFD that might still parse. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `parse`: JSON.parse, or a connection's RepeatedEnvelopeParser (same results, same throws). */
export function decodeJsonLine(bytes: Uint8Array, parse: (text: string) => unknown = JSON.parse): DecodedLine {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { kind: 'undecodable', detail: 'invalid UTF-8' };
  }
  if (text.trim().length === 0) return BLANK;
  try {
    return { kind: 'message', message: parse(text) };
  } catch {
    return { kind: 'undecodable', detail: 'invalid JSON' };
  }
}

/**
 * A message as one line (JSON never contains a raw newline). A reply that
 * cannot be serialised becomes an internal error for its id; null for any
 * other message that cannot be (see encodeMessage).
 */
export function encodeJsonLine(message: OutboundMessage): string | null {
  const text = encodeMessage(message);
  return text === null ? null : `${text}\n`;
}
