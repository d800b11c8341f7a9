/**
 * Binding HTTP sessions to the principal that created them. A session (a
 * Streamable HTTP session minted by `initialize`, a legacy SSE stream opened
 * by `GET /sse`) belongs to the principal of that request, by key: a later
 * request naming it must be authenticated as the same principal, or the
 * session does not exist for it (404, as for an unknown id: a leaked session
 * id is useless without the token). A refreshed token of the same user and
 * client keeps the key, and its principal (new scopes, new expiry) goes
 * beside the message it came with.
 *
 * The session table counts the session against the same principal
 * (ownerKey). Without an authenticator nothing binds a session but its id:
 * the peer's address counts for fairness only, since it proves nobody (many
 * clients share one, and one client moves between them).
 */
import { AuthenticatedMessage } from '../../lib/auth/authenticated.js';
import type { Principal } from '../../lib/auth/principal.js';

export interface BoundSession {
  /** The principal of the request that created the session; undefined without an authenticator. */
  readonly principal: Principal | undefined;
}

/** Whether the request's principal may use the session. */
export function ownsSession(session: BoundSession, principal: Principal | undefined): boolean {
  return session.principal?.key === principal?.key;
}

/** What to feed the session's connection: the message, beside this request's principal when it is not the session's own. */
export function inboundFor(session: BoundSession, principal: Principal | undefined, message: unknown): unknown {
  return principal === undefined || principal === session.principal ? message : new AuthenticatedMessage(message, principal);
}
