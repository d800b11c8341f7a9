/**
 * Authenticator: the transport-agnostic seam that turns one incoming request
 * (its headers, and optionally its method and URL) into a verified Principal
 * or an AuthFailure. A transport calls it before any JSON-RPC processing and
 * answers a failure with renderChallenge's status, header and body; it never
 * throws for bad credentials, and a verifier that breaks is a 500, never a
 * pass (fail closed).
 *
 * Bearer tokens are read from the `Authorization` header only (RFC 6750
 * §2.1; the MCP spec forbids tokens in the query string).
 */
import type { Principal } from './principal.js';

/** The least of a request an authenticator needs. Header names are matched case-insensitively. */
export interface AuthRequest {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly method?: string;
  /** The request target (path and query), when the transport has it. */
  readonly url?: string;
}

/** The OAuth error code of an authentication failure (RFC 6750). */
export type AuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

/** Why a request was not authenticated: the HTTP status, the OAuth error code, a description and, for `insufficient_scope`, the scopes needed. */
export interface AuthFailure {
  readonly status: 400 | 401 | 403 | 500;
  /** Absent when the request carried no credentials at all (RFC 6750 §3.1). */
  readonly error?: AuthErrorCode;
  readonly description: string;
  /** The scopes the operation needs, for the challenge. */
  readonly scope?: readonly string[];
}

/** What an authenticator resolves to: a principal, or a failure. */
export type AuthOutcome = Principal | AuthFailure;

/** Verifies a request's credentials (the `Authorization: Bearer` header) and resolves to a `Principal` or an `AuthFailure`; never throws for a bad token. */
export interface Authenticator {
  /** Verifies one request's credentials: its principal, or why not. */
  authenticate(request: AuthRequest): Promise<AuthOutcome>;
}

/** Whether an authenticator's outcome is a failure. */
export function isAuthFailure(outcome: AuthOutcome): outcome is AuthFailure {
  return typeof (outcome as AuthFailure).status === 'number' && (outcome as Partial<Principal>).key === undefined;
}

export function noCredentials(description = 'authentication required'): AuthFailure {
  return { status: 401, description };
}

export function invalidToken(description: string): AuthFailure {
  return { status: 401, error: 'invalid_token', description };
}

export function invalidRequest(description: string): AuthFailure {
  return { status: 400, error: 'invalid_request', description };
}

export function insufficientScope(scope: readonly string[], description = 'insufficient scope'): AuthFailure {
  return { status: 403, error: 'insufficient_scope', description, scope };
}

/** The verifier could not decide (it crashed, or the authorization server is unreachable): never a pass. */
export function verifierFailed(description = 'the token could not be verified'): AuthFailure {
  return { status: 500, description };
}

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function header(request: AuthRequest, name: string): string | readonly string[] | undefined {
  const direct = request.headers[name];
  if (direct !== undefined) return direct;
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

function queryHasToken(url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  if (query < 0) return false;
  return new URLSearchParams(url.slice(query + 1).split('#')[0]).has('access_token');
}

/**
 * The bearer token of a request, or the failure to answer: no Authorization
 * header, or another scheme, is "no credentials" (a challenge without an
 * error code, RFC 6750 §3.1); several headers, an empty or malformed token,
 * or a token in the query string is `invalid_request` (400).
 */
export function bearerToken(request: AuthRequest): { readonly token: string } | AuthFailure {
  if (queryHasToken(request.url)) return invalidRequest('access tokens are not accepted in the query string');
  const value = header(request, 'authorization');
  if (value === undefined) return noCredentials();
  if (typeof value !== 'string') return value.length === 1 ? bearerToken({ headers: { authorization: value[0] } }) : invalidRequest('more than one Authorization header');
  const match = /^([^\s]+)(?:[ ]+(.*))?$/.exec(value.trim());
  if (match === null || match[1]!.toLowerCase() !== 'bearer') return noCredentials('a Bearer token is required');
  const token = match[2];
  if (token === undefined || token.length === 0) return invalidRequest('the Bearer token is empty');
  if (!B64TOKEN.test(token)) return invalidRequest('the Bearer token is malformed');
  return { token };
}

/**
 * An Authenticator from a token verifier: the bearer token is extracted here,
 * and a verifier that throws or rejects becomes a 500 failure.
 */
export function bearerAuthenticator(verify: (token: string, request: AuthRequest) => Promise<AuthOutcome>): Authenticator {
  return {
    async authenticate(request) {
      const bearer = bearerToken(request);
      if (!('token' in bearer)) return bearer;
      try {
        return await verify(bearer.token, request);
      } catch {
        return verifierFailed();
      }
    },
  };
}
