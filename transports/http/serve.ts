/**
 * serveHttp: createHttpHandler on a `node:http` server of its own, bound to
 * 127.0.0.1 unless told otherwise (a local server should not listen on
 * every interface), with the socket-level guard (connection-guard.ts): caps
 * on open sockets, in all and per address, and headers, body and idle
 * timeouts on the server's scheduler. `close()` ends the handler's
 * sessions, then every socket, then the listener. Bound to a non-loopback
 * address it refuses to start without an authenticator (boot-guard.ts)
 * unless `requireAuthentication: false`.
 */
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '../../lib/server.js';
import { requireAuthenticationOption } from '../auth-options.js';
import { assertAuthenticationAllowed } from '../boot-guard.js';
import { guardConnections } from '../connection-guard.js';
import { resolveConnectionLimits, takeConnectionLimitOptions, type ConnectionLimitOptions } from '../connection-limits.js';
import { createHttpHandler, type HttpHandler } from './handler.js';
import type { HttpHandlerOptions } from './options.js';

export interface ServeHttpOptions extends HttpHandlerOptions, ConnectionLimitOptions {
  /** Default 0: an ephemeral port (read it from the returned `port` or `url`). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface HttpServerHandle {
  /** The streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** The legacy SSE stream's URL, or null when it is off. */
  readonly sseUrl: string | null;
  readonly host: string;
  readonly port: number;
  readonly httpServer: Server;
  readonly handler: HttpHandler;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function serveHttp(server: McpServer, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const [limitOptions, { port = 0, host = '127.0.0.1', ...handlerOptions }] = takeConnectionLimitOptions(options);
  const limits = resolveConnectionLimits(limitOptions);
  assertAuthenticationAllowed({
    host,
    authenticated: handlerOptions.authenticator !== undefined,
    requireAuthentication: requireAuthenticationOption(handlerOptions.requireAuthentication),
    transport: 'HTTP',
  });
  const handler = createHttpHandler(server, handlerOptions);
  const httpServer = createNodeServer(handler);
  const guard = guardConnections(httpServer, limits, server.scheduler, server.logger);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, host, () => {
      httpServer.off('error', reject);
      resolve();
    });
  });
  const bound = (httpServer.address() as AddressInfo).port;
  const base = `http://${urlHost(host)}:${bound}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${base}${handler.options.endpoint}`,
    sseUrl: handler.options.ssePath === null ? null : `${base}${handler.options.ssePath}`,
    host,
    port: bound,
    httpServer,
    handler,
    close() {
      closing ??= new Promise<void>((resolve) => {
        handler.close();
        guard.stop();
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      return closing;
    },
  };
}
