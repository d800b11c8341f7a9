/**
 * What a callback is told about the call it serves. `connId` and `transport`
 * are set by the server, never by the client, which is what makes them safe
 * to base an authorization decision on.
 */
import type { JsonRpcId } from './protocol/jsonrpc.js';

/** Identifies one client connection. `'default'` is stdio's and direct callers'. */
export type ConnId = string;

export const DEFAULT_CONN_ID: ConnId = 'default';

/** The transport a connection came through, as declared by its adapter. */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'ws' | 'memory' | 'unknown';

export const TRANSPORT_KINDS: readonly TransportKind[] = ['stdio', 'http', 'sse', 'ws', 'memory', 'unknown'];

/** Exactly what an authorizer sees of the caller. */
export interface AuthorizationContext {
  readonly connId: ConnId;
  readonly transport: TransportKind;
}

/** What a tool, resource, prompt or completion callback gets beside its arguments. */
export interface CallContext extends AuthorizationContext {
  /** Aborts on every kind of cancellation: cancel(), notifications/cancelled, timeout, caller or connection gone. */
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  /** The request's `params._meta`, when the client sent one. */
  readonly meta: Record<string, unknown> | undefined;
}
