/**
 * The objects that carry "who is calling" through the pipeline, each built
 * in one of a few fixed shapes, here and only here. A principal (and a
 * modern envelope, an era decision) is absent, not undefined, when there is
 * none: the call context and telemetry say "no principal" by absence. The
 * literals are written out, not spread: V8 copies a literal with a
 * conditional spread on a slow path (about a microsecond), and these are
 * built per request; fixed shapes also keep the call sites that read them
 * monomorphic.
 */
import type { Principal } from '../lib/auth/principal.js';
import type { AuthorizationContext, ConnId, TransportKind } from '../lib/context.js';
import type { DecidedRequest, EraDecision } from '../lib/protocol/classified.js';
import type { Origin, RequestScope } from './state/server-core.js';

/** An origin: with or without a principal, with or without an era decision. */
export function originOf(
  connId: ConnId,
  transport: TransportKind,
  peer: string,
  principal: Principal | undefined,
  mode: Origin['mode'],
  eraDecision: EraDecision | undefined,
): Origin {
  if (principal === undefined) {
    return eraDecision === undefined ? { connId, transport, peer, mode } : { connId, transport, peer, mode, eraDecision };
  }
  return eraDecision === undefined ? { connId, transport, peer, principal, mode } : { connId, transport, peer, principal, mode, eraDecision };
}

/** A request's scope: its origin's fields and the request's, with or without a principal and a modern envelope. */
export function scopeOf(origin: Origin, request: DecidedRequest): RequestScope {
  const { connId, transport, peer, principal, mode } = origin;
  const { id, method, params, era, modern } = request;
  if (principal === undefined) {
    return modern === undefined
      ? { connId, transport, peer, mode, id, method, params, era }
      : { connId, transport, peer, mode, id, method, params, era, modern };
  }
  return modern === undefined
    ? { connId, transport, peer, principal, mode, id, method, params, era }
    : { connId, transport, peer, principal, mode, id, method, params, era, modern };
}

/** Who is asking, as an authorizer may be told it: a request's scope (or anything with its connId, transport and principal). */
export interface Caller {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  readonly principal?: Principal | undefined;
}

/** What an authorizer is told (a fresh object each time: one that keeps or changes it changes nothing the next one sees). */
export function authorizationContextOf(from: Caller): AuthorizationContext {
  return from.principal === undefined
    ? { connId: from.connId, transport: from.transport }
    : { connId: from.connId, transport: from.transport, principal: from.principal };
}
