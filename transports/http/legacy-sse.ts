/**
 * The 2024-11-05 HTTP+SSE transport, on the same handler: `GET /sse` opens
 * the session's only stream and names, in an `endpoint` event, where to
 * POST (`/messages?sessionId=<minted id>`); every server message then goes
 * on that stream as a `message` event. `POST /messages?sessionId=...`
 * answers 202 and its reply, if any, arrives on the stream.
 *
 * The stream is the session: one `server.connect` while it is open, and
 * its end (the client leaving, a cut-off, the handler closing) ends the
 * connection. A POST naming no live SSE session is a 404: the message has
 * no connection to belong to, so it could neither elicit nor answer anyone
 * else's prompt.
 *
 * With an authenticator, the GET fixes the stream's principal (its owner)
 * and every POST is authenticated too: a POST by another principal finds no
 * session (404), and one whose target needs scopes the token lacks is a 403
 * before anything is delivered.
 */
import { ownerKey } from '../../lib/auth/owner-key.js';
import type { Principal } from '../../lib/auth/principal.js';
import { peerOf } from '../peer.js';
import { classifyMessage } from '../../streams/stages/classify-envelope.js';
import { sendChallenge } from './authenticate.js';
import type { HttpContext } from './context.js';
import { LegacySseSession } from './legacy-sse-session.js';
import { inboundFor, ownsSession } from './principal-binding.js';
import { scopeGate } from './scope-gate.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { refuse, sendEmpty } from './responses.js';
import { withJsonBody } from './with-json-body.js';

/** `messagesPath` is where the client is told to POST, as it reaches this handler (a mount path included). */
export function openLegacyStream(ctx: HttpContext, messagesPath: string, req: RequestHead, res: ResponseSink, principal?: Principal): void {
  const peer = peerOf(req, ctx.options.trustedProxyHeader);
  // Counted against its owner, as every share is: the principal when authenticated, else the peer.
  const admission = ctx.sessions.admit(ownerKey(principal, peer), () => new LegacySseSession(ctx.mintSessionId('sse'), ctx.server, peer, principal));
  if ('refused' in admission) {
    refuse(res, 503, `Service Unavailable: ${admission.refused}`);
    return;
  }
  const session = admission.session as LegacySseSession;
  const writer = ctx.openWriter(res, session.id);
  writer.onClose(() => ctx.sessions.remove(session.id));
  session.start(writer, `${messagesPath}?sessionId=${encodeURIComponent(session.id)}`);
}

function sseSessionNotFound(res: ResponseSink): void {
  refuse(res, 404, 'Not Found: no live SSE session with that sessionId; open GET /sse first');
}

export function postLegacyMessage<Req extends RequestHead>(
  ctx: HttpContext<Req>,
  req: Req,
  res: ResponseSink,
  query: URLSearchParams,
  principal?: Principal,
): void {
  const sessionId = query.get('sessionId');
  const session = sessionId === null ? undefined : ctx.sessions.get(sessionId);
  if (session === undefined && sessionId !== null && ctx.options.sessionDirectory !== null) {
    // Perhaps another node of the deployment holds the stream: the message goes there, read here first.
    withJsonBody(ctx, req, res, (value) => ctx.relayOrNotFound(req, res, sessionId, value, () => sseSessionNotFound(res)));
    return;
  }
  if (!(session instanceof LegacySseSession) || !ownsSession(session, principal)) {
    sseSessionNotFound(res);
    return;
  }
  ctx.sessions.touch(session.id);
  withJsonBody(ctx, req, res, (value) => deliver(ctx, res, session, value, principal));
}

function deliver(ctx: HttpContext, res: ResponseSink, session: LegacySseSession, value: unknown, principal: Principal | undefined): void {
  if (ctx.sessions.get(session.id) !== session) {
    refuse(res, 404, 'Not Found: the SSE session ended while its message was being read');
    return;
  }
  const auth = ctx.options.auth;
  if (auth !== null && principal !== undefined) {
    const message = classifyMessage(value);
    const failure = message.kind === 'request' ? scopeGate(auth, ctx.server.registry, principal, message.method, message.params) : undefined;
    if (failure !== undefined) return sendChallenge(res, failure, auth);
  }
  session.accept(inboundFor(session, principal, value));
  sendEmpty(res, 202);
}
