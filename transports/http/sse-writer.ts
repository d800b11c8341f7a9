/**
 * One SSE response: the framing (`id:`, `event:`, `data:`, `retry:`,
 * comments), a priming event (an id with empty data, so the client can
 * resume from the very start), a keep-alive comment every `keepAliveMs` on
 * the server's scheduler, and a bounded outbound buffer: a reader that stops
 * reading while more than `maxBufferedBytes` wait in the socket is cut off
 * (its connection destroyed), never buffered without end. Whatever it
 * missed is still in the event store for a resumption.
 */
import type { ServerResponse } from 'node:http';
import { interval, type SchedulerLike, type Subscription } from 'rxjs';

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
  readonly keepAliveMs: number;
  readonly scheduler: SchedulerLike;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** The wire form of one event. Data is split on line breaks, one `data:` line each. */
export function formatSseEvent(event: SseEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) text += line === '' ? 'data:\n' : `data: ${line}\n`;
  return `${text}\n`;
}

export function formatSseComment(comment: string): string {
  return `: ${comment.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export class SseWriter {
  private keepAlive: Subscription | undefined;
  private closeReason: SseCloseReason | undefined;
  private readonly closeListeners: ((reason: SseCloseReason) => void)[] = [];

  constructor(
    private readonly res: ServerResponse,
    private readonly options: SseWriterOptions,
  ) {
    res.on('close', () => this.settle('peer-gone'));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Sends the status line and headers at once, and starts the keep-alive comments. */
  open(headers: Record<string, string> = {}): void {
    if (this.closed || this.res.headersSent) return;
    this.res.writeHead(200, { ...SSE_HEADERS, ...headers });
    this.res.flushHeaders();
    this.keepAlive = interval(this.options.keepAliveMs, this.options.scheduler).subscribe(() =>
      this.write(formatSseComment('keep-alive')),
    );
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
    this.settle('ended');
    this.res.end();
  }

  /** Called once, with how the stream ended. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closeReason !== undefined) listener(this.closeReason);
    else this.closeListeners.push(listener);
  }

  private write(text: string): boolean {
    if (this.closed) return false;
    this.res.write(text);
    if (this.res.writableLength > this.options.maxBufferedBytes) {
      this.settle('cut-off');
      this.res.destroy();
      return false;
    }
    return true;
  }

  private settle(reason: SseCloseReason): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    this.keepAlive?.unsubscribe();
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
