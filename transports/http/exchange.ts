/**
 * The two halves of one HTTP exchange as the transport's routing and
 * sessions see them, so the same protocol code serves `node:http` (and the
 * frameworks built on it) and the web-standard `fetch(Request)` of Bun,
 * Deno and edge runtimes.
 *
 * Both are the parts of node's `IncomingMessage` and `ServerResponse` the
 * transport uses, so node's objects are them as they are (no wrapper on the
 * node path); `fetch-sink.ts` is the other implementation of the response.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

/** What routing reads of a request before its body: the method and the headers (lower-case names). */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/**
 * Where an answer goes. `writeHead` records the status and headers
 * (`headersSent` is true from then on); `end` finishes the answer;
 * `flushHeaders` or `write` starts a streamed body. `writableLength` is what
 * waits for a slow reader; `destroy` cuts the answer off. `close` is emitted
 * once, when the answer finished or the peer went away.
 */
export interface ResponseSink {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  readonly writableLength: number;
  writeHead(status: number, headers?: OutgoingHttpHeaders | string[]): unknown;
  /** `callback` runs once the chunk has been taken by the peer's side (the pump counts progress by it). */
  write(chunk: string | Uint8Array, callback?: (error?: Error | null) => void): unknown;
  end(chunk?: string): unknown;
  flushHeaders(): void;
  destroy(): unknown;
  on(event: 'close', listener: () => void): unknown;
}

/** The header's first value. */
export function headerOf(req: RequestHead, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
