/**
 * Writes an SSE response's bytes a slice at a time, with at most a small
 * window handed to the socket, so what the peer has taken is known as it
 * happens: a write's completion is bytes gone to the peer. One large write
 * would tell nothing until all of it was gone, and a slow reader of a large
 * event could not be told from a reader that stopped.
 *
 * A small text with nothing queued goes to the response as is (the common
 * case: one short event or reply per turn).
 */
import type { ResponseSink } from './exchange.js';

const SLICE_BYTES = 64 * 1024;
/** Enough in flight for the kernel's buffer to stay fed between two completions. */
const WINDOW_BYTES = 2 * SLICE_BYTES;

export class ResponsePump {
  private readonly queue: Buffer[] = [];
  /** How far into queue[0] has been handed out. */
  private offset = 0;
  private queued = 0;
  private inFlight = 0;
  /** Bytes whose writes completed: taken by the peer's side of the connection. */
  flushedBytes = 0;

  constructor(
    private readonly res: ResponseSink,
    /** Called after each completed write. */
    private readonly progressed: () => void,
  ) {}

  /** Bytes pushed and not yet taken by the peer. */
  get unread(): number {
    return this.queued + this.inFlight;
  }

  /** Everything pushed has been handed to the response (some may still be on its way). */
  get idle(): boolean {
    return this.queued === 0;
  }

  push(text: string): void {
    if (this.queued === 0 && text.length <= SLICE_BYTES) {
      this.write(text, Buffer.byteLength(text));
      return;
    }
    const bytes = Buffer.from(text);
    this.queue.push(bytes);
    this.queued += bytes.length;
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < WINDOW_BYTES && this.queued > 0) {
      const head = this.queue[0]!;
      const slice = head.subarray(this.offset, this.offset + SLICE_BYTES);
      this.offset += slice.length;
      this.queued -= slice.length;
      if (this.offset === head.length) {
        this.queue.shift();
        this.offset = 0;
      }
      this.write(slice, slice.length);
    }
  }

  private write(chunk: string | Buffer, bytes: number): void {
    this.inFlight += bytes;
    this.res.write(chunk, (error) => {
      if (error) return; // the response is gone: its 'close' ends the stream
      this.inFlight -= bytes;
      this.flushedBytes += bytes;
      this.pump();
      this.progressed();
    });
  }
}
