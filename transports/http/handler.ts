/**
 * createHttpHandler: streamable HTTP and the legacy HTTP+SSE transport as one
 * `node:http` request handler, mountable in a plain `http.createServer`.
 *
 * Creating it runs the network boot guard. Every request passes the
 * Host/Origin guard (403) and, when it carries one, the
 * `MCP-Protocol-Version` check (400 for a revision we do not speak; none
 * means 2025-03-26) before its path is looked at. `close()` ends every
 * session and stream; requests after it are a 503.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isSupportedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from '../../lib/protocol/versions.js';
import type { McpServer } from '../../lib/server.js';
import { assertNetworkBootAllowed } from '../boot-guard.js';
import type { HttpContext, HttpSession } from './context.js';
import { KeepAliveClock } from './keep-alive.js';
import { openLegacyStream, postLegacyMessage } from './legacy-sse.js';
import { resolveHttpOptions, type HttpHandlerOptions, type ResolvedHttpOptions } from './options.js';
import { hostAndOriginGuard } from './origin-guard.js';
import { refuse, sendJson } from './responses.js';
import { SessionTable } from './sessions.js';
import { SseWriter } from './sse-writer.js';
import { handleDelete, handleGet, handlePost } from './streamable.js';

export interface HttpHandlerStats {
  readonly sessions: number;
  /** SSE responses currently open, on both transports. */
  readonly openStreams: number;
  /** Bytes the open SSE streams hold that their readers have not taken yet (bounded per stream; see maxStreamBufferBytes). */
  readonly streamBufferedBytes: number;
}

export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Ends every session (their connections to the server) and every stream. */
  close(): void;
  stats(): HttpHandlerStats;
  readonly options: ResolvedHttpOptions;
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  refuse(res, 405, `Method Not Allowed: use ${allow}`, { Allow: allow });
}

function protocolVersionRefusal(req: IncomingMessage): string | undefined {
  const value = req.headers['mcp-protocol-version'];
  if (value === undefined) return undefined;
  const version = Array.isArray(value) ? value[0] : value;
  if (isSupportedProtocolVersion(version)) return undefined;
  return `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`;
}

/** The configured paths that a URL parse leaves as they are: a request naming one exactly can skip the parse. */
function plainPaths(paths: readonly (string | null)[]): ReadonlySet<string> {
  const plain = new Set<string>();
  for (const path of paths) {
    if (path !== null && new URL(path, 'http://localhost').pathname === path) plain.add(path);
  }
  return plain;
}

export function createHttpHandler(server: McpServer, options: HttpHandlerOptions = {}): HttpHandler {
  const resolved = resolveHttpOptions(options);
  assertNetworkBootAllowed(server, { requireAuthorization: resolved.requireAuthorization, env: resolved.env, transport: 'HTTP' });
  const logger = server.logger;
  const checkHostAndOrigin = hostAndOriginGuard(resolved);
  const keepAlive = new KeepAliveClock(resolved.keepAliveMs, server.scheduler);
  const knownPaths = plainPaths([resolved.endpoint, resolved.healthPath, resolved.ssePath, resolved.messagesPath]);
  const writers = new Set<SseWriter>();
  let closed = false;
  const ctx: HttpContext = {
    server,
    options: resolved,
    sessions: new SessionTable<HttpSession>({
      maxSessions: resolved.maxSessions,
      maxSessionsPerPeer: resolved.maxSessionsPerPeer,
      idleTimeoutMs: resolved.sessionIdleTimeoutMs,
      scheduler: server.scheduler,
      onEvict: (eviction) => logger.warn(eviction, 'HTTP session evicted to make room for a new one'),
    }),
    logger,
    openWriter(res, sessionId) {
      // A streamable session's events are all in the event store: a stream behind its reader reads them back from there.
      const replayable = ctx.sessions.get(sessionId)?.kind === 'streamable';
      const writer = new SseWriter(res, {
        maxBufferedBytes: resolved.maxStreamBufferBytes,
        stallTimeoutMs: resolved.streamStallTimeoutMs,
        scheduler: server.scheduler,
        keepAlive,
        backlog: replayable ? (afterId) => resolved.eventStore.replayAfter(sessionId, afterId)?.events : undefined,
      });
      const release = ctx.sessions.hold(sessionId);
      writers.add(writer);
      writer.onClose((reason) => {
        writers.delete(writer);
        release();
        if (reason === 'cut-off') logger.warn({ sessionId }, 'SSE reader too slow: stream cut off');
      });
      return writer;
    },
    fail(res, error) {
      logger.error({ err: error }, 'MCP HTTP handler failed');
      if (!res.headersSent) refuse(res, 500, 'Internal Server Error');
      else res.destroy();
    },
  };

  function route(req: IncomingMessage, res: ServerResponse): void {
    if (closed) return refuse(res, 503, 'Service Unavailable: this MCP HTTP handler is closed');
    const guard = checkHostAndOrigin(req);
    if (!guard.ok) return refuse(res, 403, guard.reason);
    const versionRefusal = protocolVersionRefusal(req);
    if (versionRefusal !== undefined) return refuse(res, 400, versionRefusal);
    const target = req.url ?? '/';
    // A request for one of our paths as is needs no URL parse; anything else is parsed (and normalised) as before.
    const url = knownPaths.has(target) ? undefined : new URL(target, 'http://localhost');
    const pathname = url === undefined ? target : url.pathname;
    const method = req.method ?? 'GET';
    switch (pathname) {
      case resolved.endpoint:
        if (method === 'POST') return handlePost(ctx, req, res);
        if (method === 'GET') return handleGet(ctx, req, res);
        if (method === 'DELETE') return handleDelete(ctx, req, res);
        return methodNotAllowed(res, 'GET, POST, DELETE');
      case resolved.healthPath:
        if (method !== 'GET') return methodNotAllowed(res, 'GET');
        return sendJson(res, 200, { status: 'ok', sessions: ctx.sessions.size });
      case resolved.ssePath:
        if (method !== 'GET') return methodNotAllowed(res, 'GET');
        return openLegacyStream(ctx, resolved.messagesPath!, req, res);
      case resolved.messagesPath:
        if (method !== 'POST') return methodNotAllowed(res, 'POST');
        return postLegacyMessage(ctx, req, res, url ?? new URL(target, 'http://localhost'));
      default:
        return refuse(res, 404, `Not Found: ${pathname}`);
    }
  }

  const handler = ((req: IncomingMessage, res: ServerResponse) => {
    try {
      route(req, res);
    } catch (error) {
      ctx.fail(res, error);
    }
  }) as HttpHandler;
  handler.close = () => {
    closed = true;
    ctx.sessions.closeAll();
  };
  handler.stats = () => {
    let streamBufferedBytes = 0;
    for (const writer of writers) streamBufferedBytes += writer.unsentBytes;
    return { sessions: ctx.sessions.size, openStreams: writers.size, streamBufferedBytes };
  };
  Object.defineProperty(handler, 'options', { value: resolved, enumerable: true });
  return handler;
}
