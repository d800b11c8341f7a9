/**
 * What the connection's first stages make of a message, as types only
 * (streams/stages/classify-envelope.ts and decide-era.ts do the work): its
 * kind by the JSON-RPC envelope, then, for a request, the era it is served
 * under. Here, on the ground floor, so the server's state (an origin carries
 * its connection's EraDecision) and the stages can both name them without
 * importing each other.
 */
import type { JsonRpcId, JsonRpcResponse } from './jsonrpc.js';
import type { Era, ModernRequest } from './modern.js';

export type Classified =
  | { readonly kind: 'invalid'; readonly reply: JsonRpcResponse }
  | { readonly kind: 'drop' }
  | { readonly kind: 'request'; readonly id: JsonRpcId; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | { readonly kind: 'notification'; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | { readonly kind: 'response'; readonly id: JsonRpcId; readonly message: Record<string, unknown> };

export type ClassifiedRequest = Extract<Classified, { kind: 'request' }>;

/** A request with its era decided. */
export interface DecidedRequest extends ClassifiedRequest {
  readonly era: Era;
  readonly modern?: ModernRequest;
}

export type Decided = Exclude<Classified, { kind: 'request' }> | DecidedRequest;

/** One connection's (or one message's) era decision. */
export interface EraDecision {
  decide(classified: Classified): Decided;
  /** The era the connection is pinned to; undefined while open (or when each message decides). */
  readonly pinned: Era | undefined;
}

/**
 * A modern request's envelope as the transport read it (readEnvelope), with
 * the params object it was read from. Here, not beside the stage that uses
 * it: `serveOne` names it in the package's public types, which must not
 * reach the server's state (and through it the optional peer
 * @opentelemetry/api that a consumer may not have).
 */
export interface ReadEnvelope {
  readonly params: Record<string, unknown>;
  readonly envelope: ModernRequest;
}
