/**
 * Newline-delimited JSON, one message a line: splitting a byte stream into
 * bounded lines (LineSplitter), decoding a line's bytes into a message (or
 * the reason it is not one) and encoding a message as a line.
 * Decoding never throws: invalid UTF-8 and invalid JSON are answers, and a
 * blank line is nothing at all (peers may pad between messages).
 */
import { encodeMessage } from '../lib/protocol/encode.js';
import type { OutboundMessage } from '../lib/protocol/jsonrpc.js';

/**
 * LineSplitter: byte chunks in, newline-terminated lines out, in bounded
 * memory. A line is the bytes before `\n`, less one trailing `\r` (CRLF).
 *
 * A line longer than `maxLineBytes` is reported once, as soon as it is known
 * to be too long, and its remaining bytes are skipped up to the next `\n`
 * without being kept: what the splitter holds never exceeds
 * `maxLineBytes + 1` bytes (the +1 is a `\r` that may turn out to be half of
 * a CRLF). `end()` flushes a final line that had no newline.
 */
export type LineEvent =
  | { readonly kind: 'line'; readonly bytes: Buffer }
  | { readonly kind: 'overlong'; readonly limit: number };

const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private pieces: Buffer[] = [];
  private pending = 0;
  private discarding = false;

  constructor(readonly maxLineBytes: number) {
    if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1) {
      throw new RangeError(`maxLineBytes must be a positive integer, got ${String(maxLineBytes)}`);
    }
  }

  /** Bytes of the unfinished line currently held. */
  get bufferedBytes(): number {
    return this.pending;
  }

  push(chunk: Uint8Array): LineEvent[] {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const events: LineEvent[] = [];
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(LF, start);
      const end = newline === -1 ? bytes.length : newline;
      if (!this.discarding) this.append(bytes.subarray(start, end), newline !== -1, events);
      if (newline === -1) break;
      this.finishLine(events);
      start = newline + 1;
    }
    return events;
  }

  /** The input ended: a last line without a newline still counts; a half-skipped one does not. */
  end(): LineEvent[] {
    const events: LineEvent[] = [];
    if (this.discarding) this.reset();
    else if (this.pending > 0) this.finishLine(events);
    return events;
  }

  private append(piece: Buffer, completesLine: boolean, events: LineEvent[]): void {
    if (this.pending + piece.length > this.maxLineBytes + 1) {
      events.push({ kind: 'overlong', limit: this.maxLineBytes });
      this.reset();
      this.discarding = true;
      return;
    }
    if (piece.length === 0) return;
    // A piece that outlives this chunk is copied, so a retained line never pins a whole chunk.
    this.pieces.push(completesLine ? piece : Buffer.from(piece));
    this.pending += piece.length;
  }

  private finishLine(events: LineEvent[]): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line = this.pieces.length === 1 ? this.pieces[0]! : Buffer.concat(this.pieces, this.pending);
    this.reset();
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    events.push(line.length > this.maxLineBytes ? { kind: 'overlong', limit: this.maxLineBytes } : { kind: 'line', bytes: line });
  }

  private reset(): void {
    this.pieces = [];
    this.pending = 0;
  }
}

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
