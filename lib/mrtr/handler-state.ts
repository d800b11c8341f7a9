/**
 * A handler's own requestState between MRTR rounds (kind `rxmcp.state`):
 * what it collected so far, sealed and bound to the request and owner like
 * an approval ticket, but with no ledger entry, since resuming a handler
 * decides nothing a replay could abuse beyond re-running it (a handler whose
 * rounds have effects must be idempotent, or ask through an approval).
 */
import { randomBytes } from 'node:crypto';
import { argumentsDigest, type CanonicalLimits } from '../canonical-json.js';
import type { RequestStateCodec, StateRejection } from './request-state.js';

export interface HandlerStateBinding {
  readonly method: string;
  readonly target: string;
  readonly arguments: unknown;
  readonly owner: string;
}

export type HandlerStateOpen = { readonly ok: true; readonly payload: unknown } | { readonly ok: false; readonly reason: StateRejection };

/**
 * Seals `payload` for the retry of this request, valid `ttlMs` from `now`;
 * null when the arguments cannot be bound (not plain JSON within limits).
 * Throws a RangeError when the token would pass the codec's size cap.
 */
export function sealHandlerState(
  codec: RequestStateCodec,
  binding: HandlerStateBinding,
  payload: unknown,
  now: number,
  ttlMs: number,
  limits?: CanonicalLimits,
): string | null {
  const digest = argumentsDigest(binding.arguments, limits);
  if (digest === null) return null;
  return codec.seal({
    kind: 'rxmcp.state',
    method: binding.method,
    target: binding.target,
    argumentsDigest: digest,
    owner: binding.owner,
    ticketId: randomBytes(16).toString('base64url'),
    issuedAt: now,
    expiresAt: now + ttlMs,
    payload,
  });
}

/** The payload of a retry's handler state, or why it was refused (every refusal is the fixed -32602 to the client). */
export function openHandlerState(
  codec: RequestStateCodec,
  binding: HandlerStateBinding,
  token: unknown,
  now: number,
  limits?: CanonicalLimits,
): HandlerStateOpen {
  const opened = codec.open(
    token,
    { kind: 'rxmcp.state', method: binding.method, target: binding.target, argumentsDigest: argumentsDigest(binding.arguments, limits), owner: binding.owner },
    now,
  );
  return opened.ok ? { ok: true, payload: opened.state.payload } : { ok: false, reason: opened.reason };
}
