/**
 * One SSE response: the framing (`id:`, `event:`, `data:`, `retry:`,
 * comments), a priming event (an id with empty data, so the client can
 * resume from the very start), a keep-alive comment every `keepAliveMs` on
 * the server's scheduler, and a bounded outbound buffer: a reader that stops
 * reading while more than `maxBufferedBytes` wait in the socket is cut off
 * (its connection destroyed), never buffered without end. Whatever it
 * missed is still in the event store for a resumption.
 *
 * Everything written in one turn of the event loop (the status line and
 * headers included) goes out as one write at the end of the turn: a stream
 * opened, primed, answered and ended in the same turn is one write with a
 * Content-Length, the common case of a POST whose reply is ready at once.
 * The keep-alive clock starts with the first write, so a stream that ended
 * before it never ticks; the clock is the handler's (keep-alive.ts), one
 * timer for all streams.
 */
import type { ResponseSink } from './exchange.js';
import type { KeepAliveClock } from './keep-alive.js';

export interface SseEvent {
  readonly id?: string;
  readonly event?: string;
  readonly data: string;
  readonly retry?: number;
}

/** How a stream ended: we ended it, the peer went away, or it was cut off for not reading. */
export type SseCloseReason = 'ended' | 'peer-gone' | 'cut-off';

export interface SseWriterOptions {
  readonly maxBufferedBytes: number;
  /** The handler's keep-alive clock (one timer for all its streams). */
  readonly keepAlive: KeepAliveClock;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** SSE_HEADERS as the flat name/value list writeHead takes as is. */
const SSE_HEADER_LIST: readonly string[] = Object.entries(SSE_HEADERS).flat();

const LINE_BREAK = /\r\n|\r|\n/;
const HAS_LINE_BREAK = /[\r\n]/;

/** The `data:` lines of one event: one per line of data. */
function dataLines(data: string): string {
  // Encoded JSON never holds a raw line break: one line, no split.
  if (!HAS_LINE_BREAK.test(data)) return data === '' ? 'data:\n' : `data: ${data}\n`;
  let text = '';
  for (const line of data.split(LINE_BREAK)) text += line === '' ? 'data:\n' : `data: ${line}\n`;
  return text;
}

/** The wire form of one event. Data is split on line breaks, one `data:` line each. */
export function formatSseEvent(event: SseEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  return `${text}${dataLines(event.data)}\n`;
}

export function formatSseComment(comment: string): string {
  return `: ${comment.replace(/[\r\n]+/g, ' ')}\n\n`;
}

const KEEP_ALIVE = formatSseComment('keep-alive');

function headerList(extra: Readonly<Record<string, string>>, contentLength: number | undefined): string[] {
  const list = SSE_HEADER_LIST.slice();
  for (const name in extra) list.push(name, extra[name]!);
  if (contentLength !== undefined) list.push('Content-Length', String(contentLength));
  return list;
}

export class SseWriter {
  private stopKeepAlive: (() => void) | undefined;
  private closeReason: SseCloseReason | undefined;
  private readonly closeListeners: ((reason: SseCloseReason) => void)[] = [];
  /** The extra headers of `open`, until they are sent with the first write. */
  private headers: Readonly<Record<string, string>> | undefined;
  /** Text written this turn and not yet handed to the response. */
  private pending = '';
  private flushQueued = false;

  constructor(
    private readonly res: ResponseSink,
    private readonly options: SseWriterOptions,
  ) {
    res.on('close', () => this.settle('peer-gone'));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** The status line and headers go out (at the end of this turn, with whatever follows them); keep-alive comments start. */
  open(headers: Record<string, string> = {}): void {
    if (this.closed || this.headers !== undefined || this.res.headersSent) return;
    this.headers = headers;
    this.queueFlush();
  }

  /** The priming event: an id and empty data, with the reconnection delay. */
  prime(id: string, retryMs: number): boolean {
    return this.write(formatSseEvent({ id, retry: retryMs, data: '' }));
  }

  event(event: SseEvent): boolean {
    return this.write(formatSseEvent(event));
  }

  /** Ends the response gracefully; the stream is over. */
  end(): void {
    if (this.closed) return;
    const text = this.pending;
    this.pending = '';
    const headers = this.headers;
    this.headers = undefined;
    this.settle('ended');
    if (headers !== undefined && !this.res.headersSent) {
      // Nothing went out yet: the whole stream is this one body.
      this.res.writeHead(200, headerList(headers, Buffer.byteLength(text)));
    }
    if (text === '') this.res.end();
    else this.res.end(text);
  }

  /** Called once, with how the stream ended. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closeReason !== undefined) listener(this.closeReason);
    else this.closeListeners.push(listener);
  }

  private write(text: string): boolean {
    if (this.closed) return false;
    this.pending += text;
    // One turn's output is bounded too: past the limit it goes to the socket now, and is judged there.
    if (this.pending.length > this.options.maxBufferedBytes) return this.flush();
    this.queueFlush();
    return true;
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /** Hands the pending text (and the headers, the first time) to the response; false when that cut the reader off. */
  private flush(): boolean {
    if (this.closed) return false;
    const text = this.pending;
    this.pending = '';
    if (this.headers !== undefined) {
      const headers = this.headers;
      this.headers = undefined;
      if (!this.res.headersSent) this.res.writeHead(200, headerList(headers, undefined));
      if (text === '') this.res.flushHeaders();
      this.startKeepAlive();
    }
    if (text === '') return true;
    this.res.write(text);
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.settle('cut-off');
      this.res.destroy();
      return false;
    }
    return true;
  }

  private startKeepAlive(): void {
    if (this.stopKeepAlive !== undefined || this.closed) return;
    this.stopKeepAlive = this.options.keepAlive.add(() => this.write(KEEP_ALIVE));
  }

  private settle(reason: SseCloseReason): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    this.pending = '';
    this.stopKeepAlive?.();
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
