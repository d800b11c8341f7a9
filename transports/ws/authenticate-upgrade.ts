/**
 * Authentication on the WebSocket transport happens once, at the upgrade:
 * the upgrade request's `Authorization` header goes to the authenticator
 * before the 101, and a failure is answered on the raw socket with the same
 * challenge the HTTP transport sends (401/400/403/500, `WWW-Authenticate`
 * naming the resource metadata and scopes, the OAuth error JSON). A verified
 * principal lacking the endpoint's `requiredScopes` gets the 403.
 *
 * The principal is then fixed for the socket: a bearer token cannot be
 * refreshed on an open socket, so when it expires (`expiresAt`, on the
 * server's scheduler) the socket is closed with 4401 "token expired" (4401:
 * the private-use range, read as HTTP's 401; the client reconnects with a
 * fresh token).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { SchedulerLike, Subscription } from 'rxjs';
import { verifierFailed, type AuthFailure } from '../../lib/auth/authenticator.js';
import { renderChallenge } from '../../lib/auth/challenge.js';
import type { Principal } from '../../lib/auth/principal.js';
import type { ResolvedAuth } from '../auth-options.js';
import { checkedOutcome } from '../http/authenticate.js';

/** Close code of a socket whose principal's token expired. */
export const CLOSE_TOKEN_EXPIRED = 4401;

/** The principal of the upgrade request, or the failure to answer. A broken authenticator is a 500, never a pass. */
export async function authenticateUpgrade(auth: ResolvedAuth, request: IncomingMessage): Promise<Principal | AuthFailure> {
  let outcome: unknown;
  try {
    outcome = await auth.authenticator.authenticate({ headers: request.headers, method: request.method ?? 'GET', url: request.url ?? '/' });
  } catch {
    return verifierFailed();
  }
  return checkedOutcome(auth, outcome);
}

/** Answers the upgrade request with the failure's challenge on the raw socket, then drops it. */
export function refuseWithChallenge(socket: Duplex, failure: AuthFailure, auth: ResolvedAuth): void {
  const challenge = renderChallenge(failure, { resourceMetadata: auth.wellKnown.url, scope: auth.requiredScopes });
  socket.on('error', () => {});
  if (socket.writable) {
    const headers = Object.entries(challenge.headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${challenge.status} ${STATUS_CODES[challenge.status] ?? 'Error'}\r\n` +
        'Connection: close\r\n' +
        headers +
        `Content-Length: ${Buffer.byteLength(challenge.body)}\r\n` +
        '\r\n' +
        challenge.body,
    );
  }
  socket.destroy();
}

/** Runs `onExpiry` when the principal's token expires, on the scheduler; undefined for a principal with no expiry. */
export function watchExpiry(principal: Principal | undefined, scheduler: SchedulerLike, onExpiry: () => void): Subscription | undefined {
  if (principal?.expiresAt === undefined) return undefined;
  return scheduler.schedule(onExpiry, Math.max(0, principal.expiresAt - scheduler.now()));
}
