/**
 * Principal: who is calling, as verified by an authenticator (or declared by
 * the embedding application), never as claimed inside a message. It is
 * deep-frozen, so a handler cannot change what a later authorizer sees, and
 * it never holds the raw access token.
 *
 * `key` is the principal's stable, opaque identity: a SHA-256 of (issuer,
 * subject, client id). A refreshed token of the same user and client keeps
 * the key; fairness, ownership and telemetry use it and nothing else.
 */
import { createHash } from 'node:crypto';

/** How a principal was established: an OAuth token, a local operator, or a verifier of your own. */
export type PrincipalKind = 'oauth' | 'local' | 'custom';

export const PRINCIPAL_KINDS: readonly PrincipalKind[] = ['oauth', 'local', 'custom'];

/** Who is calling, as verified by an authenticator (made by `makePrincipal`, deep-frozen, never holding the raw token). Its `key` is the fairness and session identity. */
export interface Principal {
  readonly kind: PrincipalKind;
  readonly issuer?: string;
  readonly subject?: string;
  readonly clientId?: string;
  readonly scopes: readonly string[];
  readonly audience: readonly string[];
  /** Epoch milliseconds, compared with the server's scheduler.now(). */
  readonly expiresAt?: number;
  /** The token's `jti`, for audit. */
  readonly tokenId?: string;
  readonly claims: Readonly<Record<string, unknown>>;
  readonly key: string;
}

/** What makePrincipal needs; at least one of issuer, subject and clientId names someone. */
export interface PrincipalInit {
  readonly kind?: PrincipalKind | undefined;
  readonly issuer?: string | undefined;
  readonly subject?: string | undefined;
  readonly clientId?: string | undefined;
  readonly scopes?: Iterable<string> | undefined;
  readonly audience?: Iterable<string> | undefined;
  readonly expiresAt?: number | undefined;
  readonly tokenId?: string | undefined;
  readonly claims?: Record<string, unknown> | undefined;
}

/** The stable key of (issuer, subject, clientId): base64url SHA-256 of an unambiguous encoding. */
export function principalKey(issuer: string | undefined, subject: string | undefined, clientId: string | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([issuer ?? null, subject ?? null, clientId ?? null]))
    .digest('base64url');
}

function optionalString(field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw new TypeError(`principal ${field} must be a non-empty string`);
  return value;
}

function stringList(field: string, value: Iterable<string> | undefined): readonly string[] {
  if (value === undefined) return Object.freeze([]);
  if (typeof value === 'string' || typeof (value as Iterable<string>)[Symbol.iterator] !== 'function') {
    throw new TypeError(`principal ${field} must be an iterable of strings`);
  }
  const list = new Set<string>();
  for (const item of value) {
    if (typeof item !== 'string' || item.length === 0) throw new TypeError(`principal ${field} must hold non-empty strings`);
    list.add(item);
  }
  return Object.freeze([...list]);
}

/** A detached, deep-frozen copy of JSON-like claims: nothing the caller keeps can change it later. */
function frozenCopy(value: unknown): unknown {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) copy[name] = frozenCopy(item);
    return Object.freeze(copy);
  }
  return value;
}

/**
 * Principals already known good: made here, or checked by isPrincipal. They
 * are deep-frozen, so a verdict can never go stale; a transport that checks
 * the same principal on every request pays for the check once.
 */
const known = new WeakSet<object>();

/** Validates, copies and deep-freezes a principal; throws a TypeError on a bad field. */
export function makePrincipal(init: PrincipalInit): Principal {
  if (typeof init !== 'object' || init === null) throw new TypeError('principal must be an object');
  const kind = init.kind ?? 'custom';
  if (!PRINCIPAL_KINDS.includes(kind)) throw new TypeError(`principal kind must be one of ${PRINCIPAL_KINDS.join(', ')}`);
  const issuer = optionalString('issuer', init.issuer);
  const subject = optionalString('subject', init.subject);
  const clientId = optionalString('clientId', init.clientId);
  if (issuer === undefined && subject === undefined && clientId === undefined) {
    throw new TypeError('principal needs at least one of issuer, subject and clientId');
  }
  if (init.expiresAt !== undefined && !Number.isFinite(init.expiresAt)) throw new TypeError('principal expiresAt must be a finite number');
  if (init.claims !== undefined && (typeof init.claims !== 'object' || init.claims === null || Array.isArray(init.claims))) {
    throw new TypeError('principal claims must be an object');
  }
  const principal: Principal = {
    kind,
    ...(issuer === undefined ? {} : { issuer }),
    ...(subject === undefined ? {} : { subject }),
    ...(clientId === undefined ? {} : { clientId }),
    scopes: stringList('scopes', init.scopes),
    audience: stringList('audience', init.audience),
    ...(init.expiresAt === undefined ? {} : { expiresAt: init.expiresAt }),
    ...(optionalString('tokenId', init.tokenId) === undefined ? {} : { tokenId: init.tokenId as string }),
    claims: frozenCopy(init.claims ?? {}) as Readonly<Record<string, unknown>>,
    key: principalKey(issuer, subject, clientId),
  };
  Object.freeze(principal);
  known.add(principal);
  return principal;
}

/**
 * Whether `value` is a principal as makePrincipal makes them: frozen, with
 * frozen lists and claims. Entry points that accept a principal refuse
 * anything else, so no mutable look-alike travels into the pipeline.
 */
export function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return false;
  if (known.has(value)) return true;
  const p = value as Partial<Principal>;
  const verdict =
    PRINCIPAL_KINDS.includes(p.kind as PrincipalKind) &&
    typeof p.key === 'string' &&
    Array.isArray(p.scopes) &&
    Object.isFrozen(p.scopes) &&
    Array.isArray(p.audience) &&
    Object.isFrozen(p.audience) &&
    typeof p.claims === 'object' &&
    p.claims !== null &&
    Object.isFrozen(p.claims) &&
    p.key === principalKey(p.issuer, p.subject, p.clientId);
  if (verdict) known.add(value);
  return verdict;
}

/** Whether the principal's token has expired at `now` (epoch ms); a principal with no expiry never does. */
export function isExpired(principal: Principal, now: number): boolean {
  return principal.expiresAt !== undefined && now >= principal.expiresAt;
}
