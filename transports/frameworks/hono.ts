/**
 * `rxmcp/hono`: the HTTP transport as Hono 4 middleware, on the fetch
 * handler (fetch-handler.ts), so it runs wherever Hono does.
 *
 * A request for one of the transport's paths is answered; any other goes
 * on with `next()`. Paths are the request URL's full path (Hono keeps it
 * whole under `app.route` and `basePath`): set `endpoint` to where the
 * endpoint really is. A body a middleware before it already read (with
 * `c.req.json()`, `c.req.text()`, a validator) is taken from Hono's body
 * cache.
 *
 * Only Hono's types are imported: nothing of it is loaded by this module.
 *
 * @module rxmcp/hono
 */
import type { HonoRequest, MiddlewareHandler } from 'hono';
import type { McpServer } from '../../streams/mcp-server.js';
import { createFetchHandler } from '../http/fetch-handler.js';
import type { HttpHandlerOptions, ResolvedHttpOptions } from '../http/options.js';
import type { HttpHandlerStats } from '../http/router.js';

export type { HttpHandlerOptions } from '../http/options.js';
export type { HttpHandlerStats } from '../http/router.js';

/** Hono middleware serving the HTTP transport, with `close()` and `stats()`. */
export interface HonoMcpHandler extends MiddlewareHandler {
  /** Ends every session (their connections to the server) and every stream. */
  close(): void;
  /** Its sessions and open streams. */
  stats(): HttpHandlerStats;
  readonly options: ResolvedHttpOptions;
}

/** What a middleware read of the body, from Hono's cache: the parsed JSON as it is, else the text. */
async function bodyReadBefore(req: HonoRequest): Promise<unknown> {
  try {
    return await (req.bodyCache.json ?? req.text());
  } catch {
    return undefined; // nothing readable was left: the transport says so
  }
}

/** The HTTP transport as Hono 4 middleware, over the fetch handler. */
export function createHonoHandler(server: McpServer, options: HttpHandlerOptions = {}): HonoMcpHandler {
  const handler = createFetchHandler(server, options);
  const middleware = (async (c, next) => {
    const request = c.req.raw;
    if (!handler.serves(request)) return next();
    const body = request.bodyUsed ? await bodyReadBefore(c.req) : undefined;
    return handler.handle(request, { body });
  }) as HonoMcpHandler;
  middleware.close = handler.close;
  middleware.stats = handler.stats;
  Object.defineProperty(middleware, 'options', { value: handler.options, enumerable: true });
  return middleware;
}
