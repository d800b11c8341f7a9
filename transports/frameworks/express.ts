/**
 * `rxmcp/express`: the HTTP transport as Express 5 middleware.
 *
 * `createHttpHandler` already composes as Express expects, so this is it
 * under the name an Express app looks for: `app.use(handler)` serves the
 * MCP paths and passes every other request on with `next()`;
 * `app.use('/mcp', handler)` serves the endpoint at the mount path (and the
 * legacy `/sse` and `/messages` below it); a body `express.json()` already
 * parsed is used as it is. Mind that parser's own limit (100 kB unless
 * told otherwise): a larger message is its 413 before it reaches us.
 *
 * Express is not imported: the handler's types are node's, which Express's
 * request and response extend.
 *
 * @module rxmcp/express
 */
import type { McpServer } from '../../streams/mcp-server.js';
import { createHttpHandler, type HttpHandler } from '../http/handler.js';
import type { HttpHandlerOptions } from '../http/options.js';

export type { HttpHandler, NextFunction } from '../http/handler.js';
export type { HttpHandlerStats } from '../http/router.js';
export type { HttpHandlerOptions } from '../http/options.js';

/** The HTTP transport as Express 5 middleware: it serves its own paths and calls `next()` for the others. */
export function createExpressHandler(server: McpServer, options: HttpHandlerOptions = {}): HttpHandler {
  return createHttpHandler(server, options);
}
