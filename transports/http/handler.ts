/**
 * createHttpHandler: streamable HTTP and the legacy HTTP+SSE transport as one
 * `node:http` request handler, for a plain `http.createServer` or as
 * middleware (`app.use(handler)` in Express and the routers like it).
 *
 * As middleware it composes: a body a parser already read (`req.body`) is
 * used as it is; under a mount path (`app.use('/mcp', handler)`, which
 * leaves `/` in `req.url` and `/mcp` in `req.baseUrl`) its paths are matched
 * below the mount, or the mount path itself is the endpoint; and a request
 * for a path it does not serve goes to `next()`. Without a `next` such a
 * request is a 404, as from any server of its own. Routing, guards and
 * sessions are the router's (router.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '../../streams/mcp-server.js';
import { readNodeBody, type NodeRequest } from './node-body.js';
import type { HttpHandlerOptions, ResolvedHttpOptions } from './options.js';
import { createHttpRouter, type HttpHandlerStats, type HttpRouter, type RequestTarget } from './router.js';


/** Express's `next`: called (with no argument) for a request this handler leaves to the app. */
export type NextFunction = (error?: unknown) => void;

/** A `node:http` request handler serving the HTTP transport, usable as middleware (`handler(req, res, next)`), with `close()` and `stats()`. */
export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse, next?: NextFunction): void;
  /** Ends every session (their connections to the server) and every stream. */
  close(): void;
  /** Its sessions and open streams. */
  stats(): HttpHandlerStats;
  readonly options: ResolvedHttpOptions;
}

/** A request as Express leaves it in a mounted middleware: the mount path in `baseUrl`, the rest in `url`. */
interface MountedRequest extends NodeRequest {
  baseUrl?: unknown;
}

const BASE = 'http://localhost';

/** The configured paths that a URL parse leaves as they are: a request naming one exactly can skip the parse. */
function plainPaths(paths: readonly (string | null)[]): ReadonlySet<string> {
  const plain = new Set<string>();
  for (const path of paths) {
    if (path !== null && new URL(path, BASE).pathname === path) plain.add(path);
  }
  return plain;
}

function pathnameOf(url: string, plain: ReadonlySet<string>): string {
  if (plain.has(url)) return url;
  try {
    return new URL(url, BASE).pathname;
  } catch {
    return url; // not a path any route has: it falls through to next() or the 404
  }
}

/** Where a node request goes: below its mount path, or the mount path itself; undefined when no path of the router's. */
export function locateNodeRequest(router: HttpRouter<NodeRequest>, req: MountedRequest, plain: ReadonlySet<string>): RequestTarget | undefined {
  const url = req.url ?? '/';
  const pathname = pathnameOf(url, plain);
  const mount = typeof req.baseUrl === 'string' ? req.baseUrl : '';
  if (router.serves(pathname)) return { pathname, url, mount };
  if (mount !== '') {
    const full = pathname === '/' ? mount : `${mount}${pathname}`;
    if (router.serves(full)) return { pathname: full, url, mount: '' };
  }
  return undefined;
}

/** The HTTP transport as a `node:http` handler: Streamable HTTP on `endpoint` (default `/mcp`), legacy HTTP+SSE on `/sse` and `/messages`, and `/health`. Refuses to start past the network boot guard. */
export function createHttpHandler(server: McpServer, options: HttpHandlerOptions = {}): HttpHandler {
  const router = createHttpRouter<NodeRequest>(server, options, readNodeBody);
  const { endpoint, healthPath, ssePath, messagesPath } = router.options;
  const plain = plainPaths([endpoint, healthPath, ssePath, messagesPath]);
  const handler = ((req: MountedRequest, res: ServerResponse, next?: NextFunction) => {
    const target = locateNodeRequest(router, req, plain);
    if (target !== undefined) return router.route(req, res, target);
    if (next !== undefined) return next();
    const url = req.url ?? '/';
    router.route(req, res, { pathname: pathnameOf(url, plain), url, mount: '' });
  }) as HttpHandler;
  handler.close = router.close;
  handler.stats = router.stats;
  Object.defineProperty(handler, 'options', { value: router.options, enumerable: true });
  return handler;
}
