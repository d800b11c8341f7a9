/**
 * A ResponseSink whose answer is a web-standard `Response`, for the fetch
 * handler: the same protocol code that writes to node's `ServerResponse`
 * writes here.
 *
 * An answer ended before anything was streamed (a JSON reply, a refusal, an
 * SSE stream opened and finished in one turn) is one `Response` with that
 * body. An answer that starts streaming (`flushHeaders`, `write`) is a
 * `Response` over a `ReadableStream`, made at that moment; what the reader
 * has not taken yet is `writableLength`, so a slow reader is cut off as on
 * node. The peer going away is the stream cancelled by the runtime or the
 * request's signal aborted: either is `close`, as on node.
 *
 * Hop-by-hop and framing headers (`Connection`, `Content-Length`) are left
 * to the runtime: it frames the body it is given.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { ResponseSink } from './exchange.js';

const RUNTIME_HEADERS = new Set(['connection', 'content-length', 'keep-alive', 'transfer-encoding']);

const encoder = new TextEncoder();

function toHeaders(headers: OutgoingHttpHeaders | string[] | undefined): Headers {
  const result = new Headers();
  const add = (name: string, value: unknown): void => {
    if (value === undefined || RUNTIME_HEADERS.has(name.toLowerCase())) return;
    if (Array.isArray(value)) for (const item of value) result.append(name, String(item));
    else result.set(name, String(value));
  };
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i]!, headers[i + 1]);
  } else if (headers !== undefined) {
    for (const name in headers) add(name, headers[name]);
  }
  return result;
}

export class FetchResponseSink implements ResponseSink {
  /** Resolves with the answer once its status and headers are final. */
  readonly response: Promise<Response>;
  private resolveResponse!: (response: Response) => void;
  private status = 200;
  private headers: Headers | undefined;
  private stream: ReadableStreamDefaultController<Uint8Array> | undefined;
  private finished = false;
  private gone = false;
  private readonly closeListeners: (() => void)[] = [];
  /** Write callbacks waiting for the reader to take what is queued. */
  private readonly taken: (() => void)[] = [];

  constructor(signal?: AbortSignal) {
    this.response = new Promise((resolve) => (this.resolveResponse = resolve));
    if (signal?.aborted) this.peerGone();
    else signal?.addEventListener('abort', () => this.peerGone(), { once: true });
  }

  get headersSent(): boolean {
    return this.headers !== undefined;
  }

  get destroyed(): boolean {
    return this.gone;
  }

  get writableLength(): number {
    const desired = this.stream?.desiredSize ?? 0;
    return desired < 0 ? -desired : 0;
  }

  writeHead(status: number, headers?: OutgoingHttpHeaders | string[]): this {
    if (this.headers === undefined) {
      this.status = status;
      this.headers = toHeaders(headers);
    }
    return this;
  }

  flushHeaders(): void {
    this.startStream();
  }

  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): boolean {
    if (this.finished || this.gone) return false;
    this.startStream().enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    if (callback !== undefined) {
      // Taken already (a read was waiting), else once the reader has drained the queue (pull).
      if (this.writableLength === 0) queueMicrotask(() => callback());
      else this.taken.push(callback);
    }
    return true;
  }

  end(chunk?: string): this {
    if (this.finished || this.gone) return this;
    this.finished = true;
    if (this.stream === undefined) {
      this.resolveResponse(new Response(chunk === undefined || chunk === '' ? null : chunk, { status: this.status, headers: this.headers }));
    } else {
      if (chunk !== undefined && chunk !== '') this.stream.enqueue(encoder.encode(chunk));
      this.stream.close();
    }
    this.emitClose();
    return this;
  }

  /** Cuts the answer off: the reader sees the body fail. */
  destroy(): this {
    if (this.gone) return this;
    this.gone = true;
    if (!this.finished) {
      this.finished = true;
      this.startStream().error(new Error('response destroyed'));
    }
    this.emitClose();
    return this;
  }

  on(_event: 'close', listener: () => void): this {
    this.closeListeners.push(listener);
    return this;
  }

  private startStream(): ReadableStreamDefaultController<Uint8Array> {
    if (this.stream !== undefined) return this.stream;
    this.headers ??= new Headers();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          controller = c;
        },
        // With no queue ahead of the reader, a pull means everything enqueued so far has been taken.
        pull: () => {
          for (const callback of this.taken.splice(0)) callback();
        },
        cancel: () => this.peerGone(),
      },
      // Nothing is held ahead of the reader: what it has not taken counts as waiting for it.
      { highWaterMark: 0, size: (chunk) => chunk?.byteLength ?? 0 },
    );
    this.stream = controller;
    this.resolveResponse(new Response(body, { status: this.status, headers: this.headers }));
    return controller;
  }

  /** The client went away (or stopped reading for good). */
  private peerGone(): void {
    if (this.gone) return;
    this.gone = true;
    if (!this.finished) {
      this.finished = true;
      // Whoever awaits the answer is let go; nobody reads it.
      if (this.stream === undefined) this.resolveResponse(new Response(null, { status: 503 }));
      else this.stream.error(new Error('client went away'));
    }
    this.emitClose();
  }

  private emitClose(): void {
    for (const listener of this.closeListeners.splice(0)) listener();
  }
}
