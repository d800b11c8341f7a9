/**
 * The HTTP transport's routing, whatever carries the requests (`node:http`,
 * a framework on it, or a fetch `Request`): streamable HTTP on `endpoint`,
 * the legacy HTTP+SSE transport on its two paths, and the health check.
 *
 * Creating one runs the network boot guard. Every routed request passes the
 * Host/Origin guard (403) and, when it carries one, the
 * `MCP-Protocol-Version` check (400 for a revision we do not speak; none
 * means 2025-03-26) before its path is looked at; a path it does not serve
 * is a 404, unless the caller asked `serves` first and left it to someone
 * else. `close()` ends every session and stream; requests after it are a 503.
 *
 * With an `authenticator` (MCP authorization, in the order of the spec's
 * resource server): Host/Origin guard → the public routes (the Protected
 * Resource Metadata, protected-resource.ts, and the health check) →
 * authenticate, then the endpoint's `requiredScopes` (authenticate.ts) →
 * the transports, which bind sessions to the principal and gate each
 * operation's declared scopes (principal-binding.ts, scope-gate.ts). Without
 * one, no stage of it runs and nothing is awaited.
 */
import type { Principal } from '../../lib/auth/principal.js';
import type { McpServer } from '../../streams/mcp-server.js';
import { assertAuthenticationAllowed, assertNetworkBootAllowed } from '../boot-guard.js';
import { authenticate } from './authenticate.js';
import type { BodySource, HttpContext, HttpSession } from './context.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { KeepAliveClock } from './keep-alive.js';
import { openLegacyStream, postLegacyMessage } from './legacy-sse.js';
import { resolveHttpOptions, type HttpHandlerOptions, type ResolvedHttpOptions } from './options.js';
import { hostAndOriginGuard } from './origin-guard.js';
import { protectedResourceRoute } from './protected-resource.js';
import { refuse, sendJson } from './responses.js';
import { SessionTable } from './sessions.js';
import type { Replay } from '../../lib/ports/event-store.js';
import { SseWriter } from './sse-writer.js';
import { handleDelete, handleGet, handlePost } from './streamable.js';
import { legacyVersionRefusal, modernEdge } from './classify-era.js';
import { modernExchangesOf } from './modern-post.js';
import { mintConnId } from '../conn-id.js';
import { peerOf } from '../peer.js';
import { RELAY_HEADER, RelayVerifier, relayRequest, signRelay } from './relay.js';
import { ownerNodeOf, sessionIdOf } from '../../lib/ports/session-directory.js';

/** What the HTTP transport holds: its sessions and open streams. */
export interface HttpHandlerStats {
  readonly sessions: number;
  /** SSE responses currently open, on both transports. */
  readonly openStreams: number;
  /** Bytes the open SSE streams hold that their readers have not taken yet (bounded per stream; see maxStreamBufferBytes). */
  readonly streamBufferedBytes: number;
}

/** Where a request goes, as the carrier found it. */
export interface RequestTarget {
  /** The path to route on, without the query. */
  readonly pathname: string;
  /** The path and query as received (the legacy POST reads its session from the query). */
  readonly url: string;
  /** Prefixed to the paths the handler announces (the legacy `endpoint` event): where it is mounted, '' at the root. */
  readonly mount: string;
}

export interface HttpRouter<Req extends RequestHead> {
  readonly options: ResolvedHttpOptions;
  /** Whether `pathname` is one of the handler's paths. */
  serves(pathname: string): boolean;
  /** Answers the request on `res`; a throw is the handler's 500. */
  route(req: Req, res: ResponseSink, target: RequestTarget): void;
  /** Ends every session (their connections to the server) and every stream. */
  close(): void;
  stats(): HttpHandlerStats;
}

function methodNotAllowed(res: ResponseSink, allow: string): void {
  refuse(res, 405, `Method Not Allowed: use ${allow}`, { Allow: allow });
}

export function createHttpRouter<Req extends RequestHead>(
  server: McpServer,
  options: HttpHandlerOptions,
  readBody: BodySource<Req>,
): HttpRouter<Req> {
  const resolved = resolveHttpOptions(options);
  assertNetworkBootAllowed(server, { requireAuthorization: resolved.requireAuthorization, env: resolved.env, transport: 'HTTP' });
  // Where it listens is its server's business (serveHttp checks the address); here only an explicit requireAuthentication: true applies.
  assertAuthenticationAllowed({ host: undefined, authenticated: resolved.auth !== null, requireAuthentication: resolved.requireAuthentication, transport: 'HTTP' });
  const logger = server.logger;
  const checkHostAndOrigin = hostAndOriginGuard(resolved);
  const keepAlive = new KeepAliveClock(resolved.keepAliveMs, server.scheduler);
  const auth = resolved.auth;
  const metadataRoute = auth === null ? null : protectedResourceRoute(auth, server.registry);
  const paths = new Set([resolved.endpoint, resolved.healthPath, resolved.ssePath, resolved.messagesPath, ...(metadataRoute?.paths ?? [])].filter((p) => p !== null));
  const writers = new Set<SseWriter>();
  const directory = resolved.sessionDirectory;
  const verifier = directory === null ? null : new RelayVerifier(directory.relayKey, directory.nodeId);
  /** Where each MCP request was routed (the relay asks the owner for the same path). */
  const targets = new WeakMap<Req, RequestTarget>();
  /** Requests another node relayed here, verified: never relayed again. */
  const relayed = new WeakSet<RequestHead>();
  let closed = false;
  const ctx: HttpContext<Req> = {
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
    readBody,
    openWriter(res, sessionId) {
      // A streamable session's events are all in the event store: a stream behind its reader reads them back from there.
      const replayable = ctx.sessions.get(sessionId)?.kind === 'streamable' && resolved.eventStore.shared !== true;
      const writer = new SseWriter(res, {
        maxBufferedBytes: resolved.maxStreamBufferBytes,
        stallTimeoutMs: resolved.streamStallTimeoutMs,
        scheduler: server.scheduler,
        keepAlive,
        backlog: replayable ? (afterId) => (resolved.eventStore.replayAfter(sessionId, afterId) as Replay | undefined)?.events : undefined,
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
    mintSessionId(prefix) {
      const local = mintConnId(prefix);
      return directory === null ? local : sessionIdOf(directory.nodeId, local);
    },
    relayOrNotFound(req, res, sessionId, body, notFound) {
      const target = targets.get(req as Req);
      const owner = ownerNodeOf(sessionId);
      if (directory === null || target === undefined || relayed.has(req) || owner === undefined || owner === directory.nodeId) return notFound();
      const search = target.url.indexOf('?');
      // The owner is mounted as this node is: the path as it arrived, the mount path first.
      const path = `${target.mount}${target.pathname}${search < 0 ? '' : target.url.slice(search)}`;
      directory.locate(owner).then(
        (route) => {
          if (res.destroyed || res.headersSent) return;
          if (route === undefined) return notFound();
          const relayHeader = signRelay(directory.relayKey, directory.nodeId, route.nodeId, req.method ?? 'GET', peerOf(req, resolved.trustedProxyHeader), Date.now());
          relayRequest(req, res, { route, path, body, relayHeader, connectTimeoutMs: resolved.relayConnectTimeoutMs, logger, unreachable: () => directory.unreachable(route) }, notFound);
        },
        (error: unknown) => {
          logger.warn({ err: error, sessionId }, 'session directory lookup failed: the session counts as gone');
          if (!res.destroyed && !res.headersSent) notFound();
        },
      );
    },
    fail(res, error) {
      logger.error({ err: error }, 'MCP HTTP handler failed');
      if (!res.headersSent) refuse(res, 500, 'Internal Server Error');
      else res.destroy();
    },
  };

  function dispatch(req: Req, res: ResponseSink, target: RequestTarget): void {
    if (closed) return refuse(res, 503, 'Service Unavailable: this MCP HTTP handler is closed');
    const guard = checkHostAndOrigin(req);
    if (!guard.ok) return refuse(res, 403, guard.reason);
    const relayValue = verifier === null ? undefined : req.headers[RELAY_HEADER];
    if (relayValue !== undefined) {
      // Only a node of this deployment may say it relays: anything else naming the header is refused, never trusted.
      const check = typeof relayValue !== 'string' ? { ok: false as const, reason: 'malformed relay header' } : verifier!.check(relayValue, req.method ?? 'GET', Date.now());
      if (!check.ok) return refuse(res, 403, `Forbidden: ${check.reason}`);
      relayed.add(req);
      logger.debug({ fromNode: check.fromNode, peer: check.peer }, 'relayed request');
    }
    const { pathname } = target;
    if (metadataRoute?.paths.has(pathname) === true) return metadataRoute.serve(req, res);
    // The modern era (classify-era.ts): a POST's body decides its era; GET/DELETE naming a modern revision without a session are 405.
    const modern = pathname === resolved.endpoint ? modernEdge(req) : undefined;
    if (modern === 'method-not-allowed') return methodNotAllowed(res, 'POST');
    const versionRefusal = modern === 'post-decides' ? undefined : legacyVersionRefusal(req);
    if (versionRefusal !== undefined) return refuse(res, 400, versionRefusal);
    const method = req.method ?? 'GET';
    if (pathname === resolved.healthPath && pathname !== resolved.endpoint) {
      if (method !== 'GET') return methodNotAllowed(res, 'GET');
      return sendJson(res, 200, { status: 'ok', sessions: ctx.sessions.size });
    }
    if (pathname !== resolved.endpoint && pathname !== resolved.ssePath && pathname !== resolved.messagesPath) {
      return refuse(res, 404, `Not Found: ${pathname}`);
    }
    if (auth === null) return routeMcp(req, res, target, method, undefined);
    authenticate(auth, req, target.url, res, (principal) => routeMcp(req, res, target, method, principal), (error) => ctx.fail(res, error));
  }

  /** The MCP paths, for a request past authentication (`principal` undefined without an authenticator). */
  function routeMcp(req: Req, res: ResponseSink, target: RequestTarget, method: string, principal: Principal | undefined): void {
    if (closed) return refuse(res, 503, 'Service Unavailable: this MCP HTTP handler is closed');
    if (directory !== null) targets.set(req, target);
    switch (target.pathname) {
      case resolved.endpoint:
        if (method === 'POST') return handlePost(ctx, req, res, principal);
        if (method === 'GET') return handleGet(ctx, req, res, principal);
        if (method === 'DELETE') return handleDelete(ctx, req, res, principal);
        return methodNotAllowed(res, 'GET, POST, DELETE');
      case resolved.ssePath:
        if (method !== 'GET') return methodNotAllowed(res, 'GET');
        return openLegacyStream(ctx, `${target.mount}${resolved.messagesPath!}`, req, res, principal);
      default:
        if (method !== 'POST') return methodNotAllowed(res, 'POST');
        return postLegacyMessage(ctx, req, res, new URL(target.url, 'http://localhost').searchParams, principal);
    }
  }

  return {
    options: resolved,
    serves: (pathname) => paths.has(pathname),
    route(req, res, target) {
      try {
        dispatch(req, res, target);
      } catch (error) {
        ctx.fail(res, error);
      }
    },
    close() {
      closed = true;
      ctx.sessions.closeAll();
      modernExchangesOf(ctx).closeAll();
      keepAlive.close();
    },
    stats: () => {
      let streamBufferedBytes = 0;
      for (const writer of writers) streamBufferedBytes += writer.unsentBytes;
      return { sessions: ctx.sessions.size, openStreams: writers.size, streamBufferedBytes };
    },
  };
}
