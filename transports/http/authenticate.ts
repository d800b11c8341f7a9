/**
 * The authenticate stage of the HTTP router (MCP authorization, after the
 * Host/Origin guard and the public routes, before any JSON-RPC is read):
 * the request's `Authorization` header goes to the authenticator; a failure
 * is answered here with its challenge (401 no credentials / `invalid_token`,
 * 400 `invalid_request`, 500 when the verifier could not decide), and a
 * principal lacking the endpoint's `requiredScopes` gets 403
 * `insufficient_scope` naming all of them. Only a verified principal with
 * those scopes goes on, to `next`.
 *
 * Every challenge names the Protected Resource Metadata (`resource_metadata`)
 * and, unless the failure names its own, the endpoint's scopes.
 */
import { insufficientScope, isAuthFailure, verifierFailed, type AuthFailure } from '../../lib/auth/authenticator.js';
import { renderChallenge } from '../../lib/auth/challenge.js';
import { isPrincipal, type Principal } from '../../lib/auth/principal.js';
import { missingScopes } from '../../lib/auth/scopes.js';
import type { ResolvedAuth } from '../auth-options.js';
import type { RequestHead, ResponseSink } from './exchange.js';

/** Writes a failure's challenge (status, `WWW-Authenticate`, OAuth error JSON). */
export function sendChallenge(res: ResponseSink, failure: AuthFailure, auth: ResolvedAuth): void {
  if (res.headersSent || res.destroyed) return;
  const challenge = renderChallenge(failure, { resourceMetadata: auth.wellKnown.url, scope: auth.requiredScopes });
  res.writeHead(challenge.status, { ...challenge.headers, 'Content-Length': String(Buffer.byteLength(challenge.body)) });
  res.end(challenge.body);
}

/**
 * Principals already found to hold the endpoint's scopes, per configuration:
 * an authenticator that caches its principals (jwtBearer does) hands the same
 * frozen one to every request of a session, so the check runs once.
 */
const holdsEndpointScopes = new WeakMap<ResolvedAuth, WeakSet<Principal>>();

/** The endpoint scopes the principal lacks, as the 403 to send; undefined when it holds them all. */
function endpointScopeFailure(auth: ResolvedAuth, principal: Principal): AuthFailure | undefined {
  if (auth.requiredScopes.length === 0) return undefined;
  let holders = holdsEndpointScopes.get(auth);
  if (holders?.has(principal) === true) return undefined;
  if (missingScopes(principal, auth.requiredScopes).length > 0) return insufficientScope(auth.requiredScopes, 'the token lacks scopes this endpoint requires');
  if (holders === undefined) holdsEndpointScopes.set(auth, (holders = new WeakSet()));
  holders.add(principal);
  return undefined;
}

/**
 * What an authenticator answered, checked (here and on a WebSocket upgrade): a
 * failure as it is; anything but a principal is a broken verifier (fail
 * closed); a principal lacking the endpoint's scopes gets their 403.
 */
export function checkedOutcome(auth: ResolvedAuth, outcome: unknown): Principal | AuthFailure {
  if (isAuthFailure(outcome as AuthFailure)) return outcome as AuthFailure;
  if (!isPrincipal(outcome)) return verifierFailed('the authenticator answered neither a principal nor a failure');
  return endpointScopeFailure(auth, outcome) ?? outcome;
}

/**
 * Authenticates `req` and calls `next` with its principal, or answers the
 * challenge. `failed` gets a throw from `next` or a broken authenticator's
 * rejection (the router's 500: never a pass).
 */
export function authenticate(
  auth: ResolvedAuth,
  req: RequestHead,
  url: string,
  res: ResponseSink,
  next: (principal: Principal) => void,
  failed: (error: unknown) => void,
): void {
  auth.authenticator.authenticate({ headers: req.headers, method: req.method ?? 'GET', url }).then(
    (outcome) => {
      const checked = checkedOutcome(auth, outcome);
      if (!isPrincipal(checked)) return sendChallenge(res, checked, auth);
      next(checked);
    },
    failed,
  ).catch(failed);
}
