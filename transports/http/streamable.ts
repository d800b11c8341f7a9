/**
 * The streamable HTTP endpoint (MCP 2025-03-26 and later): POST, GET and
 * DELETE on one path.
 *
 * - POST initialize without a session id mints the session (its id is the
 *   connection id, returned in `Mcp-Session-Id`); a full table makes room
 *   by its eviction policy (sessions.ts), or answers 503.
 *   Any other POST needs the header (400 without it, 404 for a session that
 *   ended or expired).
 * - POST of a request: an SSE stream when the client accepts one (a priming
 *   event on 2025-11-25 sessions, the request's own server messages, then
 *   its reply, then the end), else one JSON reply. POST of a notification
 *   or response: 202, no body. A body the envelope check refuses: 400 with
 *   the JSON-RPC error.
 * - GET opens a standalone SSE stream, or resumes one after `Last-Event-ID`.
 * - DELETE ends the session: its connection to the server goes, so its
 *   parked calls are dropped and its workers aborted.
 *
 * With an authenticator (the router authenticated the request first), the
 * session belongs to the principal of its `initialize`: a request naming it
 * as anyone else is a 404, as for an unknown session (principal-binding.ts).
 * A request whose target declares scopes the token lacks is a 403 step-up
 * challenge before the response starts (scope-gate.ts).
 */
import { ownerKey } from '../../lib/auth/owner-key.js';
import type { Principal } from '../../lib/auth/principal.js';
import { invalidRequest } from '../../lib/errors.js';
import { isModernProtocolVersion } from '../../lib/protocol/modern.js';
import { classifyMessage } from '../../streams/stages/classify-envelope.js';
import { peerOf } from '../peer.js';
import { sendChallenge } from './authenticate.js';
import type { HttpContext } from './context.js';
import { headerOf as header, type RequestHead, type ResponseSink } from './exchange.js';
import { inboundFor, ownsSession } from './principal-binding.js';
import { refuse, sendEmpty, sendJson } from './responses.js';
import { sendWholeStream } from './sse-writer.js';
import { scopeGate } from './scope-gate.js';
import { StreamableSession } from './streamable-session.js';
import { withJsonBody } from './with-json-body.js';
import { classifyPostEra, headerVersion, legacyVersionRefusal } from './classify-era.js';
import { modernExchangesOf } from './modern-post.js';

const SESSION_HEADER = 'mcp-session-id';

export function acceptsEventStream(req: RequestHead): boolean {
  const accept = header(req, 'accept');
  if (accept === undefined) return false;
  return accept.includes('text/event-stream') || accept.toLowerCase().includes('text/event-stream');
}

function isJsonContentType(req: RequestHead): boolean {
  const type = header(req, 'content-type');
  return type === undefined || type === 'application/json' || type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function sessionNotFound(res: ResponseSink): void {
  refuse(res, 404, 'Not Found: no live session with that Mcp-Session-Id (it ended or expired); initialize a new one');
}

/**
 * The session the request names (and its principal owns); answers 400/404 itself and returns undefined when there
 * is none here. A session another node of the deployment holds is relayed there (`body` is what was read of the request).
 */
function namedSession(ctx: HttpContext, req: RequestHead, res: ResponseSink, principal: Principal | undefined, body?: unknown): StreamableSession | undefined {
  const id = header(req, SESSION_HEADER);
  if (id === undefined) {
    refuse(res, 400, 'Bad Request: the Mcp-Session-Id header is required (initialize first to get one)');
    return undefined;
  }
  const session = ctx.sessions.get(id);
  if (session === undefined) {
    ctx.relayOrNotFound(req, res, id, body, () => sessionNotFound(res));
    return undefined;
  }
  if (!(session instanceof StreamableSession) || !ownsSession(session, principal)) {
    sessionNotFound(res);
    return undefined;
  }
  ctx.sessions.touch(id);
  return session;
}

/**
 * A new session, counted against its owner (the principal when authenticated, else the peer); a full table
 * makes room by its eviction policy, or this is a 503.
 */
function newSession(ctx: HttpContext, req: RequestHead, res: ResponseSink, principal: Principal | undefined): StreamableSession | undefined {
  const peer = peerOf(req, ctx.options.trustedProxyHeader);
  const admission = ctx.sessions.admit(ownerKey(principal, peer), () =>
    new StreamableSession(ctx.mintSessionId('mcp'), {
      server: ctx.server,
      store: ctx.options.eventStore,
      retryMs: ctx.options.retryMs,
      maxBacklogMessages: ctx.options.maxBacklogMessages,
      maxGetStreams: ctx.options.maxGetStreamsPerSession,
      logger: ctx.logger,
      peer,
      principal,
    }),
  );
  if ('refused' in admission) {
    refuse(res, 503, `Service Unavailable: ${admission.refused}`);
    return undefined;
  }
  return admission.session as StreamableSession;
}

export function handlePost<Req extends RequestHead>(ctx: HttpContext<Req>, req: Req, res: ResponseSink, principal?: Principal): void {
  if (!isJsonContentType(req)) {
    // A revision the legacy code refuses before the body: as it always did (the router left it to the body).
    const versionRefusal = legacyVersionRefusal(req);
    if (versionRefusal !== undefined && !isModernProtocolVersion(headerVersion(req))) return refuse(res, 400, versionRefusal);
    refuse(res, 415, 'Unsupported Media Type: POST a JSON-RPC message as application/json');
    return;
  }
  withJsonBody(ctx, req, res, (value) => postBody(ctx, req, res, value, principal));
}

function postBody(ctx: HttpContext, req: RequestHead, res: ResponseSink, value: unknown, principal: Principal | undefined): void {
  const message = classifyMessage(value);
  if (message.kind === 'invalid') {
    sendJson(res, 400, message.reply);
    return;
  }
  // The modern era (2026-07-28) is decided here, per POST; whatever it leaves legacy goes on exactly as before.
  const era = classifyPostEra(ctx.server, req, message);
  if (era.era === 'refused') return sendJson(res, era.status, era.reply);
  if (era.era === 'modern-notification') return sendEmpty(res, 202);
  if (era.era === 'modern') {
    // The same per-target scope gate as a legacy request, before any answer starts (a 403 the client can step up from).
    const modernAuth = ctx.options.auth;
    const denied =
      modernAuth === null || principal === undefined || message.kind !== 'request'
        ? undefined
        : scopeGate(modernAuth, ctx.server.registry, principal, message.method, message.params);
    if (denied !== undefined) return sendChallenge(res, denied, modernAuth!);
    const params = era.request.params;
    const read = params === undefined ? undefined : { params, envelope: era.envelope };
    return modernExchangesOf(ctx).serve(req, res, value, era.request.id, acceptsEventStream(req), principal, read);
  }
  const versionRefusal = legacyVersionRefusal(req);
  if (versionRefusal !== undefined) return refuse(res, 400, versionRefusal);
  const initializing = message.kind === 'request' && message.method === 'initialize' && header(req, SESSION_HEADER) === undefined;
  const session = initializing ? newSession(ctx, req, res, principal) : namedSession(ctx, req, res, principal, value);
  if (session === undefined) return;
  const inbound = inboundFor(session, principal, value);
  if (message.kind !== 'request') {
    session.accept(inbound);
    sendEmpty(res, 202);
    return;
  }
  const auth = ctx.options.auth;
  const scopeFailure = auth === null || principal === undefined ? undefined : scopeGate(auth, ctx.server.registry, principal, message.method, message.params);
  if (scopeFailure !== undefined) {
    sendChallenge(res, scopeFailure, auth!);
    return;
  }
  if (session.isAwaiting(message.id)) {
    sendJson(res, 400, invalidRequest(message.id, 'Invalid Request: a request with this id is already in flight on this session'));
    return;
  }
  if (message.method === 'initialize') session.initializing(message.params?.protocolVersion);
  if (acceptsEventStream(req)) {
    const headers = { 'Mcp-Session-Id': session.id };
    session.requestOverSse(inbound, message.id, {
      // Past the stream bound a writer paces the bytes.
      whole: (text) => {
        if (text.length > ctx.options.maxStreamBufferBytes || res.headersSent || res.destroyed) return false;
        sendWholeStream(res, headers, text);
        return true;
      },
      open: () => {
        const writer = ctx.openWriter(res, session.id);
        writer.open(headers);
        return writer;
      },
    });
    return;
  }
  const release = ctx.sessions.hold(session.id);
  res.on('close', release);
  session.requestOverJson(inbound, message.id, {
    settle: (data) => {
      release();
      if (res.headersSent || res.destroyed) return;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), 'Mcp-Session-Id': session.id });
      res.end(data);
    },
    abandon: (reason) => {
      release();
      if (reason === 'cancelled') sendEmpty(res, 202, { 'Mcp-Session-Id': session.id });
      else refuse(res, 404, 'Not Found: the session ended before this request was answered');
    },
  });
}

export function handleGet(ctx: HttpContext, req: RequestHead, res: ResponseSink, principal?: Principal): void {
  if (!acceptsEventStream(req)) {
    refuse(res, 406, 'Not Acceptable: GET on the MCP endpoint opens an SSE stream; send Accept: text/event-stream');
    return;
  }
  const session = namedSession(ctx, req, res, principal);
  if (session === undefined) return;
  const writer = ctx.openWriter(res, session.id);
  const served = session.listen(writer, header(req, 'last-event-id'));
  if (served === false) sendEmpty(res, 204);
  else if (served !== true) {
    served.then(
      (ok) => {
        if (!ok) sendEmpty(res, 204);
      },
      (error: unknown) => ctx.fail(res, error),
    );
  }
}

export function handleDelete(ctx: HttpContext, req: RequestHead, res: ResponseSink, principal?: Principal): void {
  const session = namedSession(ctx, req, res, principal);
  if (session === undefined) return;
  ctx.sessions.remove(session.id);
  sendEmpty(res, 204);
}
