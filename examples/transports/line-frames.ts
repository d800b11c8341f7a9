/**
 * Framing for a line protocol: byte chunks in, one frame per `\n`-terminated
 * line out (a trailing `\r` dropped), in bounded memory. A line longer than
 * `maxLineBytes` is reported once, as soon as it is known to be too long,
 * and the rest of it is skipped, not kept: a peer cannot make the transport
 * hold more than one line's worth of bytes.
 */

export type LineFrame = { readonly kind: 'line'; readonly bytes: Buffer } | { readonly kind: 'overlong' };

const LF = 0x0a;
const CR = 0x0d;

export class LineFrames {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private skipping = false;

  constructor(private readonly maxLineBytes: number) {}

  push(chunk: Buffer): LineFrame[] {
    const frames: LineFrame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(LF, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      if (!this.skipping) {
        // +1: a trailing \r is not part of the line.
        if (this.heldBytes + piece.length > this.maxLineBytes + 1) {
          frames.push({ kind: 'overlong' });
          this.held = [];
          this.heldBytes = 0;
          this.skipping = true;
        } else {
          // Copied: a line still open must not pin the whole chunk.
          this.held.push(Buffer.from(piece));
          this.heldBytes += piece.length;
        }
      }
      if (newline === -1) break;
      if (!this.skipping) frames.push(this.line());
      this.skipping = false;
      start = newline + 1;
    }
    return frames;
  }

  private line(): LineFrame {
    let bytes = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    return bytes.length > this.maxLineBytes ? { kind: 'overlong' } : { kind: 'line', bytes };
  }
}
