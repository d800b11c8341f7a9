/**
 * One SSE response: a priming event (an id with empty data, so the client
 * can resume from the very start), events, a keep-alive comment every
 * `keepAliveMs` on the server's scheduler, and a bounded outbound buffer.
 *
 * A slow reader is judged by what stays unread over time, never by the size
 * of one event. Output goes out (through a pump that knows what the peer has
 * taken) until more than `maxBufferedBytes` wait unread; the stream is then
 * *congested*, and nothing more goes out until the unread bytes are back
 * under the bound, so at most the bound plus one turn's output (itself at
 * most the bound plus one event) waits there. What is given meanwhile waits:
 * - an event with an id, when the writer has a `backlog` (the event store),
 *   is not kept here at all: once the reader catches up, what was given
 *   after the last event sent is read back from the store, so a resumed
 *   stream's replay and a burst of large events flow out as fast as the
 *   reader reads, whatever their total size;
 * - anything else waits in a buffer of at most the bound plus one event;
 *   one more is a cut-off.
 * A congested stream, or one ending with output still waiting, is checked
 * every `stallTimeoutMs` on the server's scheduler: if its reader took no
 * byte at all since the last check, it is cut off (its connection
 * destroyed). So a reader that reads receives
 * events of any size, and one that does not is cut off within two periods
 * and the bound's memory. Whatever it missed is still in the
 * event store for a resumption.
 *
 * Everything written in one turn of the event loop (the status line and
 * headers included) goes out as one write at the end of the turn: a stream
 * opened, primed, answered and ended in the same turn is one write with a
 * Content-Length. (A POST whose reply is ready at once never gets a writer:
 * its session sends the same bytes itself, `PostStreamSink` in
 * streamable-session.ts.)
 * The keep-alive clock starts with the first write, so a stream that ended
 * before it never ticks; the clock is the handler's (keep-alive.ts), one
 * timer for all streams. `end()` while output still waits ends the stream
 * once what it was given has gone out.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import type { ResponseSink } from './exchange.js';
import type { KeepAliveClock } from './keep-alive.js';
import { ResponsePump } from './response-pump.js';
import { formatSseComment, formatSseEvent, sseHeaderList, type SseEvent } from './sse-format.js';


/**
 * An event stream sent whole, as one body with its length: what a writer
 * sends for a stream opened and ended in one turn, and what a session sends
 * for a POST answered in the turn it was fed (without a writer).
 */
export function sendWholeStream(res: ResponseSink, headers: Readonly<Record<string, string>>, text: string): void {
  res.writeHead(200, sseHeaderList(headers, Buffer.byteLength(text)));
  endWith(res, text);
}

function endWith(res: ResponseSink, text: string): void {
  if (text === '') res.end();
  else res.end(text);
}

/** How a stream ended: we ended it, the peer went away, or it was cut off for not reading. */
export type SseCloseReason = 'ended' | 'peer-gone' | 'cut-off';

/** The events given after `afterId` on its stream, oldest first; undefined when that id is no longer known. */
export type SseBacklog = (afterId: string) => readonly SseEvent[] | undefined;

export interface SseWriterOptions {
  readonly maxBufferedBytes: number;
  /** The period of the stall check of a congested stream: a reader that took nothing in one is cut off. */
  readonly stallTimeoutMs: number;
  readonly scheduler: SchedulerLike;
  /** The handler's keep-alive clock (one timer for all its streams). */
  readonly keepAlive: KeepAliveClock;
  /** Where events with an id can be read again; without it, events that wait are buffered (bounded). */
  readonly backlog?: SseBacklog;
}

const KEEP_ALIVE = formatSseComment('keep-alive');

export class SseWriter {
  private stopKeepAlive: (() => void) | undefined;
  private closeReason: SseCloseReason | undefined;
  private readonly closeListeners: ((reason: SseCloseReason) => void)[] = [];
  /** The extra headers of `open`, until they are sent with the first write. */
  private headers: Readonly<Record<string, string>> | undefined;
  /** Text written this turn and not yet handed to the pump. */
  private pending = '';
  private flushQueued = false;
  private readonly pump: ResponsePump;
  /** More than the bound waits unread: nothing more goes out until the reader takes some. */
  private congested = false;
  private stallCheck: Subscription | undefined;
  /** Text given while congested that cannot be read back from the backlog. */
  private held = '';
  /** Events given while congested are to be read back from the backlog, after `sentId` up to `givenId`. */
  private behind = false;
  private sentId: string | undefined;
  private givenId: string | undefined;
  /** `end()` was called while output still waited: the stream ends once it is out. */
  private ending = false;

  constructor(
    private readonly res: ResponseSink,
    private readonly options: SseWriterOptions,
  ) {
    this.pump = new ResponsePump(res, () => this.progressed());
    res.on('close', () => this.settle('peer-gone'));
  }

  get closed(): boolean {
    return this.closeReason !== undefined;
  }

  /** Bytes this stream holds that its reader has not taken yet. */
  get unsentBytes(): number {
    return this.closed ? 0 : this.pending.length + this.held.length + this.pump.unread;
  }

  /** The status line and headers go out (at the end of this turn, with whatever follows them); keep-alive comments start. */
  open(headers: Record<string, string> = {}): void {
    if (this.closed || this.headers !== undefined || this.res.headersSent) return;
    this.headers = headers;
    this.queueFlush();
  }

  /** Sends an event, or keeps it (or its place in the backlog) while congested; false once the stream is over. */
  event(event: SseEvent): boolean {
    if (this.closed || this.ending) return false;
    if (event.id !== undefined) this.givenId = event.id;
    if (this.congested) return this.wait(event);
    this.send(event);
    return true;
  }

  /** Ends the response gracefully: at once, or once what it was given has gone out. */
  end(): void {
    if (this.closed || this.ending) return;
    if (this.congested || !this.pump.idle) {
      this.ending = true;
      this.watchStall();
      this.finishIfDone();
      return;
    }
    const text = this.pending;
    this.pending = '';
    const headers = this.headers;
    this.headers = undefined;
    this.settle('ended');
    // Nothing went out yet: the whole stream is this one body.
    if (headers !== undefined && !this.res.headersSent) return sendWholeStream(this.res, headers, text);
    endWith(this.res, text);
  }

  /** Called once, with how the stream ended. */
  onClose(listener: (reason: SseCloseReason) => void): void {
    if (this.closeReason !== undefined) listener(this.closeReason);
    else this.closeListeners.push(listener);
  }

  private send(event: SseEvent): void {
    if (event.id !== undefined) this.sentId = event.id;
    this.write(formatSseEvent(event));
  }

  /** An event given while congested: its place noted for the backlog, or held (the bound plus one event at most). */
  private wait(event: SseEvent): boolean {
    // Once something is held, later events are held too, so they cannot overtake it.
    if (this.options.backlog !== undefined && event.id !== undefined && this.sentId !== undefined && this.held === '') {
      this.behind = true;
      return true;
    }
    if (this.held.length > this.options.maxBufferedBytes) {
      this.cutOff();
      return false;
    }
    this.held += formatSseEvent(event);
    return true;
  }

  private write(text: string): void {
    this.pending += text;
    // One turn's output is bounded too: past the limit it goes out now.
    if (this.pending.length > this.options.maxBufferedBytes) this.flush();
    else this.queueFlush();
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => {
      this.flushQueued = false;
      this.flush();
    });
  }

  /** Hands the pending text (and the headers, the first time) to the pump. */
  private flush(): void {
    if (this.closed) return;
    const text = this.pending;
    this.pending = '';
    if (this.headers !== undefined) {
      const headers = this.headers;
      this.headers = undefined;
      if (!this.res.headersSent) this.res.writeHead(200, sseHeaderList(headers, undefined));
      if (text === '') this.res.flushHeaders();
      this.startKeepAlive();
    }
    if (text !== '') this.pump.push(text);
    if (this.pump.unread > this.options.maxBufferedBytes) this.congest();
  }

  private congest(): void {
    if (this.congested) return;
    this.congested = true;
    this.watchStall();
  }

  /** While the stream is congested or ending with output still waiting: a period in which the reader took nothing cuts it off. */
  private watchStall(): void {
    if (this.stallCheck !== undefined) return;
    let flushed = this.pump.flushedBytes;
    const check = (): void => {
      this.stallCheck = undefined;
      if (this.closed || (!this.congested && !this.ending)) return;
      if (this.pump.flushedBytes === flushed) return this.cutOff();
      flushed = this.pump.flushedBytes;
      this.stallCheck = this.options.scheduler.schedule(check, this.options.stallTimeoutMs);
    };
    this.stallCheck = this.options.scheduler.schedule(check, this.options.stallTimeoutMs);
  }

  /** The reader took some bytes. */
  private progressed(): void {
    if (this.closed) return;
    if (!this.congested) this.finishIfDone();
    else if (this.pump.unread <= this.options.maxBufferedBytes) this.uncongest();
  }

  /** Back under the bound: what waited goes out, in the order it was given. */
  private uncongest(): void {
    this.congested = false;
    if (!this.ending) {
      this.stallCheck?.unsubscribe();
      this.stallCheck = undefined;
    }
    if (this.behind) {
      this.behind = false;
      if (!this.catchUp() || this.congested) return;
    }
    if (this.held !== '') {
      const text = this.held;
      this.held = '';
      this.write(text);
      if (this.congested) return;
    }
    this.finishIfDone();
  }

  /** Sends what was given while congested, read back from the backlog, until congested again; false when cut off. */
  private catchUp(): boolean {
    const events = this.options.backlog!(this.sentId!);
    if (events === undefined) {
      // The store let go of what this reader missed: it can only start over (a resumption is a new stream).
      this.cutOff();
      return false;
    }
    for (const event of events) {
      if (this.congested) {
        this.behind = true;
        return true;
      }
      this.send(event);
      if (event.id === this.givenId) return true;
    }
    return true;
  }

  /** An `end()` that waited: the response ends once nothing is left to hand out. */
  private finishIfDone(): void {
    if (!this.ending || this.congested || this.behind || this.held !== '') return;
    this.flush();
    if (this.congested || !this.pump.idle) return;
    this.settle('ended');
    this.res.end();
  }

  private startKeepAlive(): void {
    if (this.stopKeepAlive !== undefined || this.closed) return;
    this.stopKeepAlive = this.options.keepAlive.add(() => {
      // Output on its way keeps the connection busy anyway; a comment would only wait behind it.
      if (!this.congested && !this.ending) this.write(KEEP_ALIVE);
    });
  }

  private cutOff(): void {
    this.settle('cut-off');
    this.res.destroy();
  }

  private settle(reason: SseCloseReason): void {
    if (this.closeReason !== undefined) return;
    this.closeReason = reason;
    this.pending = '';
    this.held = '';
    this.stallCheck?.unsubscribe();
    this.stallCheck = undefined;
    this.stopKeepAlive?.();
    for (const listener of this.closeListeners.splice(0)) listener(reason);
  }
}
