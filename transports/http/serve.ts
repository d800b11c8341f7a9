/**
 * serveHttp: createHttpHandler on a `node:http` server of its own, bound to
 * 127.0.0.1 unless told otherwise (a local server should not listen on
 * every interface), with the socket-level guard (connection-guard.ts): caps
 * on open sockets, in all and per address, and headers, body and idle
 * timeouts on the server's scheduler. `close()` ends the handler's
 * sessions, then every socket, then the listener. Bound to a non-loopback
 * address it refuses to start without an authenticator (boot-guard.ts)
 * unless `requireAuthentication: false`. With an authenticator and no
 * `resource`, the resource is the endpoint's own URL once bound.
 */
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../lib/errors.js';
import type { McpServer } from '../../streams/mcp-server.js';
import { requireAuthenticationOption } from '../auth-options.js';
import { assertAuthenticationAllowed } from '../boot-guard.js';
import { guardConnections } from '../connection-guard.js';
import { resolveConnectionLimits, takeConnectionLimitOptions, type ConnectionLimitOptions } from '../connection-limits.js';
import { createHttpHandler, type HttpHandler } from './handler.js';
import type { HttpHandlerOptions } from './options.js';

/** Options of `serveHttp`: the HTTP handler's options, the port and host, and the socket limits of the listener. */
export interface ServeHttpOptions extends HttpHandlerOptions, ConnectionLimitOptions {
  /** Default 0: an ephemeral port (read it from the returned `port` or `url`). */
  port?: number | undefined;
  /** Default `127.0.0.1`. */
  host?: string | undefined;
  /**
   * The canonical resource URI (see HttpHandlerOptions); with an authenticator
   * and no resource, this listener's own endpoint URL (`http://<host>:<port>/mcp`),
   * which a wildcard host cannot give (then it is required).
   */
  resource?: string | undefined;
}

/** A listening HTTP transport: its URLs, port, `node:http` server and handler, and `close()`. */
export interface HttpServerHandle {
  /** The streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  /** The legacy SSE stream's URL, or null when it is off. */
  readonly sseUrl: string | null;
  readonly host: string;
  readonly port: number;
  readonly httpServer: Server;
  readonly handler: HttpHandler;
  /** Ends every session and stream, then closes the listener. */
  close(): Promise<void>;
}

const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]', '']);

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** Listens with the HTTP transport (default `127.0.0.1`, port 0). */
export async function serveHttp(server: McpServer, options: ServeHttpOptions = {}): Promise<HttpServerHandle> {
  const [limitOptions, { port = 0, host = '127.0.0.1', ...handlerOptions }] = takeConnectionLimitOptions(options);
  const limits = resolveConnectionLimits(limitOptions);
  assertAuthenticationAllowed({
    host,
    authenticated: handlerOptions.authenticator !== undefined,
    requireAuthentication: requireAuthenticationOption(handlerOptions.requireAuthentication),
    transport: 'HTTP',
  });
  // With an authenticator and no resource, the resource is this listener's own URL, known once it is bound.
  const deferred = handlerOptions.authenticator !== undefined && handlerOptions.resource === undefined;
  if (deferred && WILDCARD_HOSTS.has(urlHost(host))) {
    throw new ConfigError('resource', `resource is required with an authenticator when listening on ${host}: name the URL clients use, e.g. https://mcp.example.com/mcp`);
  }
  let handler: HttpHandler | undefined = deferred ? undefined : createHttpHandler(server, handlerOptions);
  const httpServer = createNodeServer(handler ?? ((req, res) => handler!(req, res)));
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
  if (handler === undefined) {
    // No request is read before this runs: it follows the listen callback without giving the event loop a turn.
    const endpoint = typeof handlerOptions.endpoint === 'string' ? handlerOptions.endpoint : '/mcp';
    try {
      handler = createHttpHandler(server, { ...handlerOptions, resource: `${base}${endpoint}` });
    } catch (error) {
      guard.stop();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      throw error;
    }
  }
  const ready = handler;
  let closing: Promise<void> | undefined;
  return {
    url: `${base}${ready.options.endpoint}`,
    sseUrl: ready.options.ssePath === null ? null : `${base}${ready.options.ssePath}`,
    host,
    port: bound,
    httpServer,
    handler: ready,
    close() {
      closing ??= new Promise<void>((resolve) => {
        ready.close();
        guard.stop();
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
      return closing;
    },
  };
}
