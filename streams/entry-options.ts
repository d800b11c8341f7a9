/**
 * The options of the server's entry points (`connect`, `subscribe`,
 * `handleMessage`, `request`) and what `request` returns: what a transport
 * or a direct caller says about a connection and its messages.
 */
import type { Principal } from '../lib/auth/principal.js';
import type { ConnId, TransportKind } from '../lib/context.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import type { EraPolicy } from '../lib/protocol/modern.js';

/** How a connection is attached (`connect`, `subscribe`): the transport kind, the peer (the fairness key), the principal, the era policy. */
export interface ConnectOptions {
  /** Declared by the transport adapter; authorizers may rely on it. */
  readonly transport?: TransportKind | undefined;
  /**
   * The best identity of the remote peer the transport has (the remote
   * address, or a trusted proxy header's value): the key the fairness rules
   * count by, so one peer opening many connections crowds out only itself.
   * Default: the connection id (a peer per connection).
   */
  readonly peer?: string | undefined;
  /**
   * Who is calling, as verified by the transport's authenticator (or vouched
   * for by the embedding application, which is trusted like `connId`). It
   * reaches every authorizer and handler context, and it replaces `peer` as
   * the fairness key (`principal:<key>`, by the one rule of
   * lib/auth/owner-key.ts): one principal over many connections or
   * addresses holds one share. Must come from makePrincipal.
   */
  readonly principal?: Principal | undefined;
  /**
   * How this connection's requests get their era (see EraPolicy). Default by
   * transport: 'legacy' for sse and http (sessions are a legacy notion),
   * 'per-connection' for everything else.
   */
  readonly era?: EraPolicy | undefined;
  /**
   * After the inbound completes (the peer is done sending but may still
   * read: stdin closed), how long, on the server's scheduler, the calls in
   * flight get to answer before they are cancelled; the connection's listen
   * streams end at once, without a word (as when the connection goes), since
   * they never answer. Default 0: the inbound completing cancels everything at once, as
   * its failing always does.
   */
  readonly drainMs?: number | undefined;
}

/** Options of `handleMessage`: the connection, its principal, and a timeout or signal that stops waiting. */
export interface HandleMessageOptions {
  readonly connId?: ConnId | undefined;
  /** Stop waiting after this long: the call's worker is cancelled and the Promise rejects. */
  readonly timeoutMs?: number | undefined;
  /** Aborting it is the caller going away: the call is cancelled and the Promise rejects. */
  readonly signal?: AbortSignal | undefined;
  /** The verified caller of this message (see ConnectOptions.principal); default: the connection's. */
  readonly principal?: Principal | undefined;
}

/** Options of `request`: a signal that cancels it, and the verified principal of the message. */
export interface RequestOptions {
  /** Aborting it is the caller going away: every request made with it is cancelled. */
  readonly signal?: AbortSignal | undefined;
  /** The verified caller of this message (see ConnectOptions.principal); default: the connection's. */
  readonly principal?: Principal | undefined;
}

/** Opaque handle for `cancel`. */
export class RequestRef {
  declare private readonly brand: 'RequestRef';
}

/** What `server.request` returns: the request's one eventual reply, and the ref `cancel` takes. */
export interface PendingRequest {
  /** The reply: exactly one, `null` for a notification or a cancelled request. */
  readonly reply: Promise<JsonRpcResponse | null>;
  readonly ref: RequestRef;
}
