/**
 * serveWebSocket: MCP over WebSocket (subprotocol "mcp", one JSON-RPC
 * message per text frame, one server connection per socket). Either attached
 * to an existing http(s) server, handling upgrades for its path only so it
 * can share a port with the HTTP transport, or listening on a port of its
 * own, with the socket-level guard (connection-guard.ts) on it. The network
 * boot guard runs before anything listens. `close()` stops taking upgrades,
 * ends every connection (1001) and, when it owns the listener, closes it.
 *
 * With an `authenticator`, each upgrade is authenticated after the
 * handshake checks and before the 101 (authenticate-upgrade.ts); while it
 * is verified it counts against maxConnections. A non-loopback listener
 * refuses to start without one unless `requireAuthentication: false`.
 *
 * `ws` itself is imported by serveWebSocket when it is called, so importing
 * rxmcp/transports (for serveStdio, say) does not load it.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Server as TlsServer } from 'node:tls';
import type { WebSocket } from 'ws';
import type { McpServer } from '../../streams/mcp-server.js';
import { isAuthFailure } from '../../lib/auth/authenticator.js';
import type { Principal } from '../../lib/auth/principal.js';
import { assertAuthenticationAllowed, assertNetworkBootAllowed } from '../boot-guard.js';
import { protectedResourceRoute } from '../http/protected-resource.js';
import { refuse } from '../http/responses.js';
import { authenticateUpgrade, refuseWithChallenge } from './authenticate-upgrade.js';
import { guardConnections, markTakenOver, type ConnectionGuard } from '../connection-guard.js';
import { CLOSE_GOING_AWAY } from './closing.js';
import { peerOf } from '../peer.js';
import { MCP_SUBPROTOCOL, checkHandshake, checkHost, checkOrigin, refuseUpgrade } from './handshake.js';
import { resolveWebSocketOptions, type ResolvedWebSocketOptions, type ServeWebSocketOptions } from './options.js';
import { OutboundBudget } from './outbound-budget.js';
import { serveSocket, type SocketConnection } from './socket-connection.js';

/** A WebSocket transport being served: its URL, its connections, the bytes it holds unsent, and `close()`. */
export interface WebSocketTransport {
  /** ws:// (or wss://) URL of the endpoint, once its server listens. */
  readonly url: string | undefined;
  /** Live sockets. */
  readonly connections: number;
  /** Outbound bytes the open sockets hold unsent (what maxTotalBufferedBytes bounds). */
  readonly bufferedBytes: number;
  /** Closes every socket and, when it listens on its own, the listener. */
  close(): Promise<void>;
}

function pathOf(request: IncomingMessage): string | undefined {
  try {
    return new URL(request.url ?? '/', 'http://placeholder').pathname;
  } catch {
    return undefined;
  }
}

function urlOf(httpServer: HttpServer | TlsServer, path: string | undefined): string | undefined {
  const address = httpServer.address();
  if (address === null || typeof address === 'string') return undefined;
  const { address: ip, port } = address as AddressInfo;
  const host = ip.includes(':') ? `[${ip}]` : ip;
  const scheme = httpServer instanceof TlsServer ? 'wss' : 'ws';
  return `${scheme}://${host}:${port}${path ?? '/'}`;
}

/** The address an attached server already listens on, if it does. */
function listeningAddress(httpServer: HttpServer | TlsServer): string | undefined {
  const address = httpServer.address();
  return address === null || typeof address === 'string' ? undefined : (address as AddressInfo).address;
}

function listen(httpServer: HttpServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    httpServer.once('error', onError);
    httpServer.listen(port, host, () => {
      httpServer.off('error', onError);
      resolve();
    });
  });
}

/** The listener of its own: plain HTTP requests are told to upgrade, except for the Protected Resource Metadata when it publishes one. */
function ownHttpServer(server: McpServer, resolved: ResolvedWebSocketOptions): HttpServer {
  const metadata = resolved.auth === null ? null : protectedResourceRoute(resolved.auth, server.registry);
  return createHttpServer((request, response) => {
    if (metadata !== null && metadata.paths.has(pathOf(request) ?? '')) {
      const verdict = [checkHost(request.headers.host, resolved.allowedHosts), checkOrigin(request.headers.origin, resolved.allowedOrigins)].find((v) => !v.ok);
      if (verdict !== undefined && !verdict.ok) return refuse(response, verdict.status, `Forbidden: ${verdict.reason}`);
      return metadata.serve(request, response);
    }
    response.writeHead(426, { 'Content-Type': 'text/plain; charset=utf-8', Upgrade: 'websocket', Connection: 'Upgrade' });
    response.end(`This is an MCP WebSocket endpoint: connect with a WebSocket client, subprotocol "${MCP_SUBPROTOCOL}".\n`);
  });
}

/** Serves MCP over WebSocket (subprotocol `mcp`, one JSON-RPC message per text frame, one connection per socket), attached to a server or listening on its own. */
export async function serveWebSocket(server: McpServer, options: ServeWebSocketOptions): Promise<WebSocketTransport> {
  const resolved: ResolvedWebSocketOptions = resolveWebSocketOptions(options);
  assertNetworkBootAllowed(server, { requireAuthorization: resolved.requireAuthorization, env: resolved.env, transport: 'WebSocket' });
  assertAuthenticationAllowed({
    host: resolved.mode === 'listen' ? resolved.host : listeningAddress(resolved.httpServer!),
    authenticated: resolved.auth !== null,
    requireAuthentication: resolved.requireAuthentication,
    transport: 'WebSocket',
  });
  // ws is loaded here, on the first serveWebSocket, not when rxmcp/transports is imported: a stdio server never evaluates it.
  const { WebSocketServer } = await import('ws');
  const logger = server.logger;
  const auth = resolved.auth;
  const httpServer = resolved.httpServer ?? ownHttpServer(server, resolved);
  const guard: ConnectionGuard | undefined =
    resolved.connectionLimits === undefined ? undefined : guardConnections(httpServer as HttpServer, resolved.connectionLimits, server.scheduler, logger);
  const wss = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: resolved.maxPayload,
    handleProtocols: (protocols) => (protocols.has(MCP_SUBPROTOCOL) ? MCP_SUBPROTOCOL : false),
  });
  const live = new Map<WebSocket, SocketConnection>();
  const budget = new OutboundBudget(resolved.maxTotalBufferedBytes);
  let upgrading = 0;
  let closing = false;

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (resolved.path !== undefined && pathOf(request) !== resolved.path) {
      // Attached: another upgrade handler on the shared server may own that path.
      if (resolved.mode === 'listen') refuseUpgrade(socket, 404, 'no WebSocket endpoint on this path');
      return;
    }
    if (closing) {
      refuseUpgrade(socket, 503, 'server shutting down');
      return;
    }
    const verdict = checkHandshake(request, resolved);
    if (!verdict.ok) {
      logger.info({ status: verdict.status, reason: verdict.reason }, 'rxmcp ws: upgrade refused');
      refuseUpgrade(socket, verdict.status, verdict.reason);
      return;
    }
    if (live.size + upgrading >= resolved.maxConnections) {
      logger.warn({ maxConnections: resolved.maxConnections }, 'rxmcp ws: connection limit reached; upgrade refused');
      refuseUpgrade(socket, 503, `too many WebSocket connections (maxConnections ${resolved.maxConnections})`);
      return;
    }
    upgrading += 1;
    // An upgrade that fails inside ws never calls back; the socket closing gives its place back.
    let counted = true;
    const uncount = () => {
      if (!counted) return;
      counted = false;
      upgrading -= 1;
    };
    socket.once('close', uncount);
    const upgrade = (principal: Principal | undefined) =>
      wss.handleUpgrade(request, socket, head, (ws) => {
        uncount();
        socket.off('close', uncount);
        markTakenOver(socket); // the listener's HTTP timeouts no longer apply: pings keep it honest
        if (closing) {
          ws.terminate();
          return;
        }
        live.set(ws, serveSocket(server, ws, { limits: resolved, budget, peer: peerOf(request, resolved.trustedProxyHeader), principal, logger }));
        ws.once('close', () => live.delete(ws));
      });
    if (auth === null) return upgrade(undefined);
    void authenticateUpgrade(auth, request).then((outcome) => {
      if (socket.destroyed) return uncount();
      if (closing) {
        uncount();
        return refuseUpgrade(socket, 503, 'server shutting down');
      }
      if (isAuthFailure(outcome)) {
        uncount();
        logger.info({ status: outcome.status, reason: outcome.description }, 'rxmcp ws: upgrade not authenticated');
        return refuseWithChallenge(socket, outcome, auth);
      }
      upgrade(outcome);
    });
  };

  httpServer.on('upgrade', onUpgrade);
  if (resolved.mode === 'listen') {
    try {
      await listen(httpServer as HttpServer, resolved.port, resolved.host);
    } catch (error) {
      httpServer.off('upgrade', onUpgrade);
      guard?.stop();
      throw error;
    }
  }
  logger.info({ url: urlOf(httpServer, resolved.path) }, 'rxmcp ws: serving');

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      closing = true;
      httpServer.off('upgrade', onUpgrade);
      const sockets = [...live.entries()];
      const gone = sockets.map(([ws]) => new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve()))));
      for (const [, connection] of sockets) connection.end(CLOSE_GOING_AWAY, 'server shutting down');
      await Promise.all(gone);
      wss.close();
      guard?.stop();
      if (resolved.mode === 'listen') {
        await new Promise<void>((resolve) => httpServer.close(() => resolve()));
      }
    })();
    return closed;
  };

  return {
    get url() {
      return urlOf(httpServer, resolved.path);
    },
    get connections() {
      return live.size;
    },
    get bufferedBytes() {
      return budget.bytes;
    },
    close,
  };
}
