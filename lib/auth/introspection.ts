/**
 * introspection: an Authenticator for opaque tokens, asking the authorization
 * server (RFC 7662: POST `token=…&token_type_hint=access_token`, form
 * encoded, as an authenticated client). A token passes only when the answer
 * says `active: true`, its `aud` holds one of this resource's audiences, its
 * `exp` (if any) is not past on the scheduler and its `iss` (if configured)
 * matches.
 *
 * Answers are cached by a hash of the token in a bounded LRU: a pass until
 * min(exp, now + cacheTtlMs), a rejection for negativeCacheTtlMs. One token
 * is asked about once at a time, and at most maxPending distinct tokens are
 * being asked about at once (past that, a 500: a flood of made-up tokens
 * cannot turn into a flood on the authorization server). An authorization
 * server that fails or does not answer in time is a 500, never a pass, and is
 * not cached.
 */
import type { SchedulerLike } from 'rxjs';
import { ConfigError } from '../errors.js';
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
import { fetchJson, serverUrl } from './fetch-json.js';
import { makePrincipal, type Principal } from './principal.js';
import { TokenCache, tokenHash } from './token-cache.js';

/** Options of `introspection`: the endpoint, this server's client credentials, the audiences, caching and timeouts. */
export interface IntrospectionOptions {
  /** The authorization server's introspection_endpoint. https (http only on localhost). */
  readonly endpoint: string;
  /** This resource server's client credentials (HTTP Basic, RFC 6749 §2.3.1)... */
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  /** ...or the Authorization header value to send, made fresh for each request. */
  readonly authorization?: (() => string | Promise<string>) | undefined;
  /** The audiences this resource answers to; the answer's `aud` must hold one. */
  readonly audiences: readonly string[];
  /** When set, an answer naming another `iss` is rejected. */
  readonly issuer?: string | undefined;
  /** Most cached answers; default 1000. */
  readonly cacheMax?: number | undefined;
  /** Longest a pass is cached; default 60000. */
  readonly cacheTtlMs?: number | undefined;
  /** How long a rejection is cached; default 5000. */
  readonly negativeCacheTtlMs?: number | undefined;
  /** Most distinct tokens being introspected at once; default 64. */
  readonly maxPending?: number | undefined;
  /** Timeout of each introspection request; default 5000. */
  readonly timeoutMs?: number | undefined;
  /** Which response members the principal keeps as claims; default `'all'`. */
  readonly claims?: 'all' | readonly string[] | undefined;
  /** The server's clock; default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
}

const KNOWN = [
  'endpoint', 'clientId', 'clientSecret', 'authorization', 'audiences', 'issuer', 'cacheMax', 'cacheTtlMs',
  'negativeCacheTtlMs', 'maxPending', 'timeoutMs', 'claims', 'scheduler',
];

/** RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded. */
function basicAuthorization(clientId: string, clientSecret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`).toString('base64')}`;
}

function clientAuthentication(options: IntrospectionOptions): () => string | Promise<string> {
  const clientId = optionalString('introspection.clientId', options.clientId);
  const clientSecret = optionalString('introspection.clientSecret', options.clientSecret);
  if (options.authorization !== undefined) {
    if (typeof options.authorization !== 'function') throw new ConfigError('introspection.authorization', 'introspection.authorization must be a function');
    if (clientId !== undefined || clientSecret !== undefined) {
      throw new ConfigError('introspection.authorization', 'give introspection.authorization or clientId and clientSecret, not both');
    }
    return options.authorization;
  }
  if (clientId === undefined || clientSecret === undefined) {
    throw new ConfigError('introspection.clientId', 'introspection needs clientId and clientSecret (or an authorization function)');
  }
  const header = basicAuthorization(clientId, clientSecret);
  return () => header;
}

/** An authenticator for opaque tokens by RFC 7662 token introspection, with a bounded cache and one request per token at a time. */
export function introspection(options: IntrospectionOptions): Authenticator {
  const raw = requireObject('introspection', options);
  refuseUnknown('introspection', raw, KNOWN);
  const endpoint = serverUrl('introspection.endpoint', options.endpoint).href;
  const authorization = clientAuthentication(options);
  const audiences = nonEmptyStrings('introspection.audiences', options.audiences);
  const issuer = optionalString('introspection.issuer', options.issuer);
  const cacheTtlMs = integerOption('introspection.cacheTtlMs', options.cacheTtlMs, 60_000);
  const negativeCacheTtlMs = integerOption('introspection.negativeCacheTtlMs', options.negativeCacheTtlMs, 5_000, 0);
  const maxPending = integerOption('introspection.maxPending', options.maxPending, 64);
  const timeoutMs = integerOption('introspection.timeoutMs', options.timeoutMs, 5_000);
  const claims = claimSelection('introspection.claims', options.claims);
  const scheduler = schedulerOption('introspection.scheduler', options.scheduler);
  const cache = new TokenCache<AuthOutcome>(integerOption('introspection.cacheMax', options.cacheMax, 1000), scheduler);
  const pending = new Map<string, Promise<AuthOutcome>>();

  /** The answer read as an outcome, and until when it may be cached. */
  const judge = (answer: Record<string, unknown>): { outcome: AuthOutcome; until: number } => {
    const now = scheduler.now();
    const rejected = (description: string) => ({ outcome: invalidToken(description), until: now + negativeCacheTtlMs });
    if (answer.active !== true) return rejected('the token is not active');
    const audience = audienceOf(answer.aud);
    if (!audience.some((aud) => audiences.includes(aud))) return rejected('the token is not for this resource');
    const iss = stringClaim(answer.iss);
    if (issuer !== undefined && iss !== undefined && iss !== issuer) return rejected('the token is from another issuer');
    const exp = typeof answer.exp === 'number' && Number.isFinite(answer.exp) ? answer.exp * 1000 : undefined;
    if (exp !== undefined && now >= exp) return rejected('the token has expired');
    const subject = stringClaim(answer.sub);
    const clientId = stringClaim(answer.client_id);
    if (subject === undefined && clientId === undefined) return rejected('the token names no subject or client');
    const { active: _active, ...rest } = answer;
    const principal: Principal = makePrincipal({
      kind: 'oauth',
      issuer: iss ?? issuer,
      subject,
      clientId,
      scopes: scopesOf(answer.scope),
      audience,
      expiresAt: exp,
      tokenId: stringClaim(answer.jti),
      claims: selectClaims(rest, claims),
    });
    return { outcome: principal, until: Math.min(exp ?? Number.POSITIVE_INFINITY, now + cacheTtlMs) };
  };

  const ask = async (token: string, hash: string): Promise<AuthOutcome> => {
    let answer: Record<string, unknown>;
    try {
      answer = await fetchJson(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: await authorization() },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        timeoutMs,
        scheduler,
      });
    } catch {
      return verifierFailed('the token could not be introspected');
    }
    const { outcome, until } = judge(answer);
    cache.set(hash, outcome, until);
    return outcome;
  };

  return bearerAuthenticator(async (token) => {
    const hash = tokenHash(token);
    const cached = cache.get(hash);
    // An entry never outlives the token's exp, so a hit is still current.
    if (cached !== undefined) return cached;
    const inFlight = pending.get(hash);
    if (inFlight !== undefined) return inFlight;
    if (pending.size >= maxPending) return verifierFailed('too many tokens being verified');
    const asked = ask(token, hash).finally(() => pending.delete(hash));
    pending.set(hash, asked);
    return asked;
  });
}

