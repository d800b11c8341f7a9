/**
 * Two small Authenticators. `customVerifier(fn)` wraps any token check of
 * the application's own (API keys, a proprietary token service): the bearer
 * token is extracted here, `fn` says who it is. `staticTokens(map)` is a fixed
 * token → principal table for tests and development (a network transport
 * should refuse it in production unless explicitly allowed).
 */
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../errors.js';
import { bearerAuthenticator, bearerToken, invalidToken, type AuthFailure, type AuthRequest, type Authenticator } from './authenticator.js';
import { requireObject, schedulerOption } from './config.js';
import { isExpired, isPrincipal, makePrincipal, type Principal, type PrincipalInit } from './principal.js';
import { tokenHash } from './token-cache.js';

/**
 * What a custom verifier answers: a principal (or what makes one; kind
 * defaults to `'custom'`), a failure to send as is, or null for "not a valid
 * token". A throw is a 500, never a pass.
 */
export type CustomVerdict = Principal | PrincipalInit | AuthFailure | null | undefined;

/** A token check of your own: a principal's fields, a failure, or `null` for an invalid token. */
export type CustomVerify = (token: string, request: AuthRequest) => CustomVerdict | Promise<CustomVerdict>;

/** An authenticator from a function that checks a bearer token. */
export function customVerifier(verify: CustomVerify): Authenticator {
  if (typeof verify !== 'function') throw new ConfigError('customVerifier', 'customVerifier needs a function');
  return bearerAuthenticator(async (token, request) => {
    const verdict = await verify(token, request);
    if (verdict === null || verdict === undefined) return invalidToken('the token is not valid');
    if (typeof (verdict as AuthFailure).status === 'number') return verdict as AuthFailure;
    if (isPrincipal(verdict)) return verdict;
    const init = verdict as PrincipalInit;
    return makePrincipal({ ...init, kind: init.kind ?? 'custom' });
  });
}

/** Options of `staticTokens`. */
export interface StaticTokensOptions {
  /** Judges a principal's expiresAt; default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
}

/** An authenticator over a fixed table of tokens, for tests and development. */
export function staticTokens(
  tokens: Readonly<Record<string, PrincipalInit>> | ReadonlyMap<string, PrincipalInit>,
  options: StaticTokensOptions = {},
): Authenticator {
  const entries = tokens instanceof Map ? [...tokens.entries()] : Object.entries(requireObject('staticTokens', tokens));
  const scheduler = schedulerOption('staticTokens.scheduler', options.scheduler);
  const byHash = new Map<string, Principal>();
  for (const [token, init] of entries) {
    const parsed = bearerToken({ headers: { authorization: `Bearer ${token}` } });
    if (!('token' in parsed)) throw new ConfigError('staticTokens', 'every static token must be a valid bearer token (RFC 6750 b64token)');
    try {
      byHash.set(tokenHash(token), makePrincipal({ ...(init as PrincipalInit), kind: (init as PrincipalInit).kind ?? 'local' }));
    } catch (error) {
      throw new ConfigError('staticTokens', `staticTokens: ${(error as Error).message}`);
    }
  }
  return bearerAuthenticator(async (token) => {
    const principal = byHash.get(tokenHash(token));
    if (principal === undefined) return invalidToken('the token is not valid');
    if (isExpired(principal, scheduler.now())) return invalidToken('the token has expired');
    return principal;
  });
}
