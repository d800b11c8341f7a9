/**
 * jwtBearer: an Authenticator for JWT access tokens (RFC 9068 style), on
 * `jose`. A token passes only when all hold: the signature verifies with a
 * key of the issuer's JWKS, its `alg` is on the allow-list (asymmetric only:
 * never `none`, never an HMAC against a public key set), `iss` is exactly the
 * issuer, `aud` holds one of this resource's audiences (RFC 8707), and `exp`
 * is present and not past on the server's scheduler (`nbf` too).
 *
 * Keys: a static `jwks`, a `jwksUri`, or the `jwks_uri` of the issuer's
 * metadata (RFC 8414, then OIDC), discovered on first use. A remote key set
 * is cached by jose (`jwksCacheMaxAgeMs`) and an unknown `kid` refetches it
 * at most once per `jwksCooldownMs`, so a storm of made-up kids cannot hammer
 * the authorization server. A failed discovery is retried no sooner than
 * `discoveryRetryMs` later, on the scheduler. A JWKS that cannot be fetched
 * is a 500 (the token is never treated as valid).
 *
 * A client sends the same token with every request of a session, so a
 * verified token's principal is kept in a bounded cache keyed by a SHA-256
 * of the token (`cacheMax` entries, least recently used first), until the
 * token expires or `cacheTtlMs` passes, whichever is first, judged on the
 * scheduler: a repeat request costs a hash, not a signature check. Only
 * successes are kept. A key removed from the issuer's JWKS stops being
 * trusted for cached tokens within `cacheTtlMs`.
 */
import type { JSONWebKeySet, JWSAlgorithm, JWTPayload, JWTVerifyGetKey, jwtVerify } from 'jose';
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../errors.js';
import { discoverMetadata } from './as-metadata.js';
import { bearerAuthenticator, invalidToken, verifierFailed, type AuthOutcome, type Authenticator } from './authenticator.js';
import {
  audienceOf,
  claimSelection,
  integerOption,
  nonEmptyStrings,
  optionalString,
  refuseUnknown,
  requireObject,
  schedulerOption,
  scopesOf,
  selectClaims,
  stringClaim,
} from './config.js';
import { serverUrl } from './fetch-json.js';
import { makePrincipal, type Principal } from './principal.js';
import { TokenCache, tokenHash } from './token-cache.js';

/** Signature algorithms a resource server can verify with an issuer's public keys. */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
];

export const DEFAULT_JWT_ALGORITHMS: readonly string[] = ['RS256', 'PS256', 'ES256', 'EdDSA', 'Ed25519'];

/** Options of `jwtBearer`: the issuer, the audiences, the key set (or its discovery), algorithms, clock tolerance and caches. */
export interface JwtBearerOptions {
  /** The issuer, exactly as tokens carry it in `iss`. https (http only on localhost). */
  readonly issuer: string;
  /** The audiences this resource answers to (its canonical resource URI first); a token's `aud` must hold one. */
  readonly audiences: readonly string[];
  /** Where the issuer's JWKS is; default: the `jwks_uri` of the issuer's metadata. */
  readonly jwksUri?: string | undefined;
  /** A static key set instead of a remote one. */
  readonly jwks?: JSONWebKeySet | undefined;
  /** The allowed `alg` values; default RS256, PS256, ES256, EdDSA, Ed25519. Asymmetric ones only. */
  readonly algorithms?: readonly string[] | undefined;
  /** Leeway for `exp` and `nbf`; default 0. */
  readonly clockToleranceMs?: number | undefined;
  /** The required `typ` header (e.g. `at+jwt`, RFC 9068); default: not checked. */
  readonly typ?: string | undefined;
  /** The claim holding the scopes; default `scope` (space-delimited), else `scp` (array). */
  readonly scopeClaim?: string | undefined;
  /** Which claims the principal keeps; default `'all'`. */
  readonly claims?: 'all' | readonly string[] | undefined;
  /** How long jose keeps a fetched JWKS; default 600000 (10 min). */
  readonly jwksCacheMaxAgeMs?: number | undefined;
  /** No refetch for an unknown `kid` sooner than this after a fetch; default 30000. */
  readonly jwksCooldownMs?: number | undefined;
  /** Timeout of each JWKS and metadata request; default 5000. */
  readonly fetchTimeoutMs?: number | undefined;
  /** After a failed discovery, how long until the next attempt; default 30000. */
  readonly discoveryRetryMs?: number | undefined;
  /** The server's clock: token expiry is judged at scheduler.now(). Default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
  /** Verified tokens kept (their principals, by a hash of the token); 0 turns the cache off. Default 1000. */
  readonly cacheMax?: number | undefined;
  /** Longest a verified token is kept (never past its `exp`). Default 60000. */
  readonly cacheTtlMs?: number | undefined;
}

const KNOWN = [
  'issuer', 'audiences', 'jwksUri', 'jwks', 'algorithms', 'clockToleranceMs', 'typ', 'scopeClaim', 'claims',
  'jwksCacheMaxAgeMs', 'jwksCooldownMs', 'fetchTimeoutMs', 'discoveryRetryMs', 'scheduler', 'cacheMax', 'cacheTtlMs',
];

function algorithmsOption(value: unknown): JWSAlgorithm[] {
  const list = value === undefined ? DEFAULT_JWT_ALGORITHMS : nonEmptyStrings('jwtBearer.algorithms', value);
  for (const alg of list) {
    if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw new ConfigError('jwtBearer.algorithms', `jwtBearer.algorithms may hold only ${ASYMMETRIC_ALGORITHMS.join(', ')}; got ${JSON.stringify(alg)}`);
    }
  }
  return [...list];
}

function jwksOption(value: unknown): JSONWebKeySet | undefined {
  if (value === undefined) return undefined;
  const set = requireObject('jwtBearer.jwks', value);
  if (!Array.isArray(set.keys)) throw new ConfigError('jwtBearer.jwks', 'jwtBearer.jwks must be a JSON Web Key Set ({ keys: [...] })');
  return set as unknown as JSONWebKeySet;
}

/** Why a jose error rejects the token, or null when it means the verifier could not decide. */
function tokenProblem(error: unknown): string | null {
  const { code, claim } = (error ?? {}) as { code?: unknown; claim?: unknown };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the token has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') return 'the token is not for this resource';
      if (claim === 'iss') return 'the token is from another issuer';
      if (claim === 'nbf') return 'the token is not valid yet';
      if (claim === 'exp') return 'the token has no valid expiry';
      if (claim === 'typ') return 'the token has the wrong type';
      return `the token's ${typeof claim === 'string' ? claim : 'claims'} claim is invalid`;
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return "the token's algorithm is not allowed";
    case 'ERR_JOSE_NOT_SUPPORTED':
      return "the token's algorithm or key is not supported";
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'no single key of the issuer matches the token';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return "the token's signature does not verify";
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'the token is not a valid JWT';
    default:
      // ERR_JWKS_TIMEOUT, ERR_JWKS_INVALID, ERR_JOSE_GENERIC (JWKS not 200), network errors.
      return null;
  }
}

/** An authenticator for JWT access tokens (on `jose`): signature by a key of the issuer's JWKS, an allow-list of asymmetric algorithms, `iss`, `aud` and `exp` checked on the scheduler's clock. */
export function jwtBearer(options: JwtBearerOptions): Authenticator {
  const raw = requireObject('jwtBearer', options);
  refuseUnknown('jwtBearer', raw, KNOWN);
  // Compared with `iss` as given: RFC 8414 issuers are exact strings, not normalized URLs.
  serverUrl('jwtBearer.issuer', options.issuer, { allowQuery: false });
  const issuer = options.issuer;
  const audiences = nonEmptyStrings('jwtBearer.audiences', options.audiences);
  const algorithms = algorithmsOption(options.algorithms);
  const staticJwks = jwksOption(options.jwks);
  const jwksUri = options.jwksUri === undefined ? undefined : serverUrl('jwtBearer.jwksUri', options.jwksUri);
  if (staticJwks !== undefined && jwksUri !== undefined) throw new ConfigError('jwtBearer.jwks', 'give jwtBearer.jwks or jwtBearer.jwksUri, not both');
  const clockToleranceMs = integerOption('jwtBearer.clockToleranceMs', options.clockToleranceMs, 0, 0);
  const typ = optionalString('jwtBearer.typ', options.typ);
  const scopeClaim = optionalString('jwtBearer.scopeClaim', options.scopeClaim);
  const claims = claimSelection('jwtBearer.claims', options.claims);
  const remote = {
    cacheMaxAge: integerOption('jwtBearer.jwksCacheMaxAgeMs', options.jwksCacheMaxAgeMs, 600_000),
    cooldownDuration: integerOption('jwtBearer.jwksCooldownMs', options.jwksCooldownMs, 30_000, 0),
    timeoutDuration: integerOption('jwtBearer.fetchTimeoutMs', options.fetchTimeoutMs, 5_000),
  };
  const discoveryRetryMs = integerOption('jwtBearer.discoveryRetryMs', options.discoveryRetryMs, 30_000);
  const scheduler = schedulerOption('jwtBearer.scheduler', options.scheduler);
  const cacheMax = integerOption('jwtBearer.cacheMax', options.cacheMax, 1000, 0);
  const cacheTtlMs = integerOption('jwtBearer.cacheTtlMs', options.cacheTtlMs, 60_000);
  const verified = cacheMax === 0 ? undefined : new TokenCache<Principal>(cacheMax, scheduler);

  /** The key set and jose's verify, together: jose is loaded with the first token, not when the library is imported. */
  interface Verifier {
    readonly getKey: JWTVerifyGetKey;
    readonly verify: typeof jwtVerify;
  }
  let keys: Verifier | undefined;
  let discovering: Promise<Verifier> | undefined;
  let lastFailure = Number.NEGATIVE_INFINITY;

  const resolveKeys = async (): Promise<Verifier> => {
    const jose = await import('jose');
    if (staticJwks !== undefined) return { getKey: jose.createLocalJWKSet(staticJwks), verify: jose.jwtVerify };
    const uri = jwksUri ?? serverUrl('jwks_uri', (await discoverMetadata(issuer, { timeoutMs: remote.timeoutDuration, scheduler })).jwks_uri);
    return { getKey: jose.createRemoteJWKSet(uri, remote), verify: jose.jwtVerify };
  };

  /** The key set, resolving it once (discovered from the issuer's metadata without a jwksUri); concurrent first requests share it. */
  const keySet = (): Promise<Verifier> | Verifier | null => {
    if (keys !== undefined) return keys;
    if (discovering !== undefined) return discovering;
    if (scheduler.now() - lastFailure < discoveryRetryMs) return null;
    discovering = resolveKeys().then(
      (resolved) => {
        keys = resolved;
        discovering = undefined;
        return resolved;
      },
      (error: unknown) => {
        lastFailure = scheduler.now();
        discovering = undefined;
        throw error;
      },
    );
    return discovering;
  };

  const principalOf = (payload: JWTPayload) =>
    makePrincipal({
      kind: 'oauth',
      issuer,
      subject: stringClaim(payload.sub),
      clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp),
      scopes: scopesOf(scopeClaim === undefined ? (payload.scope ?? payload.scp) : payload[scopeClaim]),
      audience: audienceOf(payload.aud),
      expiresAt: (payload.exp as number) * 1000,
      tokenId: stringClaim(payload.jti),
      claims: selectClaims(payload as Record<string, unknown>, claims),
    });

  return bearerAuthenticator(async (token): Promise<AuthOutcome> => {
    const hash = verified === undefined ? undefined : tokenHash(token);
    const known = hash === undefined ? undefined : verified!.get(hash);
    if (known !== undefined) return known;
    let verifier: Verifier | null;
    try {
      verifier = await keySet();
    } catch {
      return verifierFailed('the authorization server metadata could not be fetched');
    }
    if (verifier === null) return verifierFailed('the authorization server metadata could not be fetched');
    try {
      const { payload } = await verifier.verify(token, verifier.getKey, {
        issuer,
        audience: [...audiences],
        algorithms,
        clockTolerance: clockToleranceMs / 1000,
        currentDate: new Date(scheduler.now()),
        requiredClaims: ['exp'],
        ...(typ === undefined ? {} : { typ }),
      });
      if (stringClaim(payload.sub) === undefined && stringClaim(payload.client_id) === undefined && stringClaim(payload.azp) === undefined) {
        return invalidToken('the token names no subject or client');
      }
      const principal = principalOf(payload);
      if (hash !== undefined) verified!.set(hash, principal, Math.min(principal.expiresAt!, scheduler.now() + cacheTtlMs));
      return principal;
    } catch (error) {
      const problem = tokenProblem(error);
      return problem === null ? verifierFailed('the issuer keys could not be fetched') : invalidToken(problem);
    }
  });
}
