/**
 * createFetchHandler: the HTTP transport as a web-standard
 * `(request: Request) => Promise<Response>`, for Bun.serve, Deno.serve,
 * edge runtimes and the frameworks built on fetch (Hono). The same router,
 * guards and sessions as createHttpHandler (router.ts), writing into
 * FetchResponseSink instead of node's ServerResponse: Streamable HTTP (JSON
 * and SSE answers, the standalone GET stream, DELETE, resumption), the
 * legacy HTTP+SSE transport and the health check, with the same options.
 *
 * Paths are the request URL's own (a framework on fetch does not strip a
 * mount path). For middleware: `serves` tells the requests to leave to the
 * app, and `handle` takes a body a middleware before it already read.
 */
import type { McpServer } from '../../streams/mcp-server.js';
import { readFetchBody, type FetchRequest } from './fetch-body.js';
import { FetchResponseSink } from './fetch-sink.js';
import type { HttpHandlerOptions, ResolvedHttpOptions } from './options.js';
import { createHttpRouter, type HttpHandlerStats } from './router.js';

/** Options of one `handler.handle(request, options)`: a body already read, and the client's address. */
export interface FetchHandleOptions {
  /** The request's body as something before the handler read it: its text, bytes, or the parsed JSON value. */
  readonly body?: unknown | undefined;
  /**
   * The client's address as the runtime knows it (Bun: `server.requestIP(req)?.address`,
   * Deno: `info.remoteAddr.hostname`): the peer the fairness rules count by. A
   * `Request` carries none, so without it (or a trustedProxyHeader) every
   * client of this handler is one peer.
   */
  readonly remoteAddress?: string | undefined;
}

/** The HTTP transport as a fetch handler, `(request) => Promise<Response>`, with `serves`, `handle`, `close` and `stats`. */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  /** Whether the request's path is one of the handler's; middleware leaves the others to the app. */
  serves(request: Request): boolean;
  /** As the handler itself, with the body a middleware before it already read. */
  handle(request: Request, options?: FetchHandleOptions): Promise<Response>;
  /** Ends every session (their connections to the server) and every stream. */
  close(): void;
  /** Its sessions and open streams. */
  stats(): HttpHandlerStats;
  readonly options: ResolvedHttpOptions;
}

/** The request's headers as the router reads them; Host from the URL when the runtime left it out. */
function headersOf(request: Request, url: URL): Record<string, string> {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers.host ??= url.host;
  return headers;
}

/** The HTTP transport (Streamable HTTP, legacy HTTP+SSE, the health check) as a web-standard fetch handler, for Bun, Deno and other fetch runtimes. */
export function createFetchHandler(server: McpServer, options: HttpHandlerOptions = {}): FetchHandler {
  const router = createHttpRouter<FetchRequest>(server, options, readFetchBody);

  function answer(request: Request, url: URL, body: unknown, remoteAddress?: string): Promise<Response> {
    const sink = new FetchResponseSink(request.signal);
    const head: FetchRequest = { method: request.method, headers: headersOf(request, url), request, body, socket: { remoteAddress } };
    router.route(head, sink, { pathname: url.pathname, url: `${url.pathname}${url.search}`, mount: '' });
    return sink.response;
  }

  const handler = ((request: Request) => answer(request, new URL(request.url), undefined)) as FetchHandler;
  handler.serves = (request) => router.serves(new URL(request.url).pathname);
  handler.handle = (request, handleOptions) => answer(request, new URL(request.url), handleOptions?.body, handleOptions?.remoteAddress);
  handler.close = router.close;
  handler.stats = router.stats;
  Object.defineProperty(handler, 'options', { value: router.options, enumerable: true });
  return handler;
}
