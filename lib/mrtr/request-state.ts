/**
 * Sealed MRTR requestState: what the server hands a client in an
 * `input_required` result and reads back, unchanged, on the retry. The
 * client holds it, so it is attacker-controlled: it is AES-256-GCM sealed
 * (encrypted, not only signed: the client learns nothing from it) under the
 * key ring, and bound to the request it answers.
 *
 * Token: `rxs1.<key id>.<base64url(iv | ciphertext | tag)>`; the additional
 * data is `rxs1.<key id>`, so neither the version nor the key id can be
 * swapped. Claims: version, kind, a 128-bit ticket id, method, digests of the
 * target (tool, prompt name or URI), of the canonical arguments and of the
 * audience (the server's identity), the owner's tag, issued-at and expiry on
 * the server's scheduler, and optionally a prompt digest and a payload.
 *
 * `open` checks in this order and stops at the first failure (fail closed):
 * size (before any crypto) -> prefix and version -> key id -> AEAD open ->
 * claims shape -> kind -> expiry -> method -> target -> arguments ->
 * audience -> owner. An authentic state past its expiry is told apart
 * (`expired`, with the state), since it earns the "timed out" deny. The
 * expiry was set on the sealing process's clock; `open`'s `allowanceMs`
 * (0: exact, one process, one clock) relaxes it for a state opened on
 * another process, whose clock may differ, when a shared ledger on a clock of
 * its own decides the expiry (streams/approval-ledger.ts clockSkewMs). Every
 * other failure earns the one fixed -32602 (lib/errors.ts
 * invalidRequestState), its reason for the logger and events$ only.
 */
import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import { ownerTag, type KeyRing } from '../ports/key-ring.js';
import { shortDigest } from '../canonical-json.js';

export const STATE_VERSION = 1;
const PREFIX = 'rxs1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** `rxmcp.approve`: an authorizer's ask waiting for the user; `rxmcp.state`: a handler's own state between rounds. */
export type StateKind = 'rxmcp.approve' | 'rxmcp.state';

/** What a state is bound to: the request it answers and who may present it. */
export interface StateBinding {
  readonly kind: StateKind;
  readonly method: string;
  /** The tool or prompt name, or the resource URI. */
  readonly target: string;
  /** lib/mrtr/canonical-json.ts argumentsDigest; null (arguments not canonicalisable) never matches. */
  readonly argumentsDigest: string | null;
  /** The owner key (a connection id, a peer, a principal's key): only its tag travels. */
  readonly owner: string;
}

export interface SealInput extends StateBinding {
  readonly argumentsDigest: string;
  readonly ticketId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Digest of the approval question (shortDigest of the prompt), so a changed question is noticed. */
  readonly promptDigest?: string;
  /** A handler's own data between rounds (JSON); bounded by the token's size cap. */
  readonly payload?: unknown;
}

export interface OpenedState {
  readonly kind: StateKind;
  readonly ticketId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly promptDigest?: string;
  readonly payload?: unknown;
}

/** Why a state was refused: for the logger and events$, never for the client. */
export type StateRejection =
  | 'oversize'
  | 'malformed'
  | 'unknown_key'
  | 'unauthentic'
  | 'bad_claims'
  | 'wrong_kind'
  | 'expired'
  | 'wrong_method'
  | 'wrong_target'
  | 'wrong_arguments'
  | 'wrong_audience'
  | 'wrong_owner';

export type OpenResult =
  | { readonly ok: true; readonly state: OpenedState }
  | { readonly ok: false; readonly reason: 'expired'; readonly state: OpenedState }
  | { readonly ok: false; readonly reason: Exclude<StateRejection, 'expired'> };

/** The claims as sealed (short names: the token stays a few hundred bytes). */
interface Claims {
  v: number;
  kind: StateKind;
  tid: string;
  m: string;
  t: string;
  a: string;
  own: string;
  aud: string;
  iat: number;
  exp: number;
  pd?: string;
  p?: unknown;
}

export interface RequestStateCodecOptions {
  /** The server's identity (its name, later with its resource URL): a state sealed for another audience is refused. */
  readonly audience: string;
  /** Longest token accepted, and sealed (characters; a token is ASCII). */
  readonly maxBytes: number;
}

export class RequestStateCodec {
  private readonly audienceDigest: string;

  constructor(
    private readonly ring: KeyRing,
    private readonly options: RequestStateCodecOptions,
  ) {
    this.audienceDigest = shortDigest(options.audience);
  }

  /** The token for `input`; throws a RangeError when it would pass maxBytes (only a large payload can). */
  seal(input: SealInput): string {
    const key = this.ring.sealing();
    const claims: Claims = {
      v: STATE_VERSION,
      kind: input.kind,
      tid: input.ticketId,
      m: input.method,
      t: shortDigest(input.target),
      a: input.argumentsDigest,
      own: ownerTag(key, input.owner),
      aud: this.audienceDigest,
      iat: input.issuedAt,
      exp: input.expiresAt,
    };
    if (input.promptDigest !== undefined) claims.pd = input.promptDigest;
    if (input.payload !== undefined) claims.p = input.payload;
    const header = `${PREFIX}.${key.id}`;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.aeadKey, iv);
    cipher.setAAD(Buffer.from(header, 'ascii'));
    const sealed = Buffer.concat([iv, cipher.update(JSON.stringify(claims), 'utf8'), cipher.final(), cipher.getAuthTag()]);
    const token = `${header}.${sealed.toString('base64url')}`;
    if (token.length > this.options.maxBytes) {
      throw new RangeError(`requestState of ${token.length} bytes passes maxRequestStateBytes (${this.options.maxBytes})`);
    }
    return token;
  }

  /**
   * Opens `token` as a state for `expected`, at `now` on the server's
   * scheduler; it has expired once `now >= expiresAt + allowanceMs`.
   */
  open(token: unknown, expected: StateBinding, now: number, allowanceMs = 0): OpenResult {
    if (typeof token !== 'string') return { ok: false, reason: 'malformed' };
    if (token.length > this.options.maxBytes) return { ok: false, reason: 'oversize' };
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) return { ok: false, reason: 'malformed' };
    const [, keyId, body] = parts as [string, string, string];
    const key = this.ring.find(keyId);
    if (key === undefined) return { ok: false, reason: 'unknown_key' };
    const sealed = strictBase64url(body);
    if (sealed === null || sealed.length <= IV_BYTES + TAG_BYTES) return { ok: false, reason: 'malformed' };
    const plain = openSealed(key.aeadKey, `${PREFIX}.${keyId}`, sealed);
    if (plain === null) return { ok: false, reason: 'unauthentic' };
    const claims = parseClaims(plain);
    if (claims === null) return { ok: false, reason: 'bad_claims' };
    if (claims.kind !== expected.kind) return { ok: false, reason: 'wrong_kind' };
    const state = openedState(claims);
    if (now >= claims.exp + allowanceMs) return { ok: false, reason: 'expired', state };
    if (claims.m !== expected.method) return { ok: false, reason: 'wrong_method' };
    if (!sameText(claims.t, shortDigest(expected.target))) return { ok: false, reason: 'wrong_target' };
    if (expected.argumentsDigest === null || !sameText(claims.a, expected.argumentsDigest)) return { ok: false, reason: 'wrong_arguments' };
    if (!sameText(claims.aud, this.audienceDigest)) return { ok: false, reason: 'wrong_audience' };
    if (!sameText(claims.own, ownerTag(key, expected.owner))) return { ok: false, reason: 'wrong_owner' };
    return { ok: true, state };
  }
}

/** base64url bytes, or null unless `text` is exactly the canonical encoding of them (no second spelling of a token). */
function strictBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

function openSealed(aeadKey: Buffer, header: string, sealed: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', aeadKey, sealed.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(header, 'ascii'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
    return plain.toString('utf8');
  } catch {
    return null;
  }
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** The claims, when they have the shape this version seals; anything else is refused even though it is authentic. */
function parseClaims(plain: string): Claims | null {
  let value: unknown;
  try {
    value = JSON.parse(plain);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const c = value as Record<string, unknown>;
  const shaped =
    c.v === STATE_VERSION &&
    (c.kind === 'rxmcp.approve' || c.kind === 'rxmcp.state') &&
    [c.tid, c.m, c.t, c.a, c.own, c.aud].every(isText) &&
    Number.isFinite(c.iat) &&
    Number.isFinite(c.exp) &&
    (c.pd === undefined || isText(c.pd));
  return shaped ? (c as unknown as Claims) : null;
}

function openedState(claims: Claims): OpenedState {
  const state: { -readonly [K in keyof OpenedState]: OpenedState[K] } = {
    kind: claims.kind,
    ticketId: claims.tid,
    issuedAt: claims.iat,
    expiresAt: claims.exp,
  };
  if (claims.pd !== undefined) state.promptDigest = claims.pd;
  if (claims.p !== undefined) state.payload = claims.p;
  return state;
}

/** Equality that takes the same time wherever the first difference is. */
function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
