/**
 * What a callback is told about the call it serves. `connId`, `transport`
 * and `principal` are set by the server (the principal by an authenticator
 * at the transport, or by the embedding application), never by the client,
 * which is what makes them safe to base an authorization decision on.
 */
import type { SchedulerLike } from 'rxjs';
import type { Principal } from './auth/principal.js';
import type { LogLevel } from './log-levels.js';
import type { JsonRpcId } from './protocol/jsonrpc.js';
import type { Era, ModernRequest } from './protocol/modern.js';

/** Identifies one client connection. `'default'` is stdio's and direct callers'. */
export type ConnId = string;

/** The connection id of a direct caller that names none. */
export const DEFAULT_CONN_ID: ConnId = 'default';

/** The transport a connection came through, as declared by its adapter. */
export type TransportKind = 'stdio' | 'http' | 'sse' | 'ws' | 'memory' | 'unknown';

export const TRANSPORT_KINDS: readonly TransportKind[] = ['stdio', 'http', 'sse', 'ws', 'memory', 'unknown'];

/** Exactly what an authorizer sees of the caller. */
export interface AuthorizationContext {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  /** Who is calling, as verified; absent when the connection is unauthenticated. Nothing in a message sets it. */
  readonly principal?: Principal;
}

/** What a tool, resource, prompt or completion callback gets beside its arguments. */
export interface CallContext extends AuthorizationContext {
  /** Aborts on every kind of cancellation: cancel(), notifications/cancelled, timeout, caller or connection gone. */
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  /**
   * The request's `params._meta`, when the client sent one. Read-only: a
   * modern client's envelope repeated on a stdio or WebSocket connection is
   * one deep-frozen object shared by its requests.
   */
  readonly meta: Record<string, unknown> | undefined;
  /** The protocol era this request is served under. */
  readonly era: Era;
  /**
   * Whether the client declared the extension `id` (lib/extension.ts) for
   * this request: a modern request's `clientCapabilities.extensions[id]`, a
   * legacy connection's `initialize` capabilities. Only the server's own
   * extensions are remembered for a legacy connection, so any other id is false there.
   */
  clientDeclares(extensionId: string): boolean;
  /**
   * A modern request's envelope: its protocol version, the capabilities the
   * client declared for this request (adapt to them rather than fail), and
   * its self-reported clientInfo and log level. Undefined on legacy requests.
   * Frozen and shared by the requests of a connection that repeat one envelope.
   */
  readonly modern: ModernRequest | undefined;
  /**
   * The server's clock (the `scheduler` option; `asyncScheduler` unless one
   * was given): `timer(ms, ctx.scheduler)`, `ctx.scheduler.now()`. A handler
   * that keeps time through it runs on a test's virtual clock unchanged.
   */
  readonly scheduler: SchedulerLike;
  /**
   * Waits `ms` on the server's clock; rejects with the signal's reason when
   * the call is cancelled (timeout, cancel, caller gone), so an `async`
   * handler stops at its next `await ctx.sleep(...)`. The same as
   * `sleep(ms, { scheduler: ctx.scheduler, signal: ctx.signal })`.
   */
  sleep(ms: number): Promise<void>;
  /**
   * notifications/progress for this request; a no-op when the request carried
   * no progress token or nothing can receive pushes.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * notifications/message for this request: on legacy, filtered by the
   * connection's logging/setLevel; on modern, sent only at or above the
   * request's own `io.modelcontextprotocol/logLevel`, and never without one.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the user through the client (elicitation/create). Form mode checks
   * the requested schema against the spec's restrictions before sending;
   * URL mode (`{ mode: 'url', url, elicitationId, message }`) needs the
   * client's `elicitation.url` capability. Rejects with ClientCapabilityError
   * when the client did not advertise the capability, and on timeout. On a
   * modern request nothing is sent: on tools/call, resources/read and
   * prompts/get, with the capability declared, the round ends input_required
   * and the retry re-runs the handler with the answer (replay: the code
   * before this call must be idempotent); otherwise it rejects with
   * InputNeededError (a ClientCapabilityError), answered -32021 if the
   * handler lets it through. The same for `sample` and `listRoots`.
   */
  elicit(params: ElicitParams): Promise<ElicitResult>;
  /** sampling/createMessage; needs the client's `sampling` capability. */
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** roots/list; needs the client's `roots` capability. */
  listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }>;
  /**
   * Several inputs at once, each under a key the handler names (not starting
   * with `rxmcp.`, which single calls use); resolves with every answer under
   * its key. Legacy: each is a real client request (as elicit / sample /
   * listRoots, with their checks and errors), sent concurrently; the first
   * failure rejects. Modern (tools/call, resources/read, prompts/get): one
   * `input_required` round asks every key still unanswered, and the retry's
   * `inputResponses` (collected across rounds in the sealed requestState)
   * answer them; unknown keys are ignored. A request kind whose capability
   * the modern request did not declare rejects the whole call with
   * InputNeededError (-32021 naming every missing capability): check
   * `ctx.modern.clientCapabilities` first to adapt.
   */
  askInputs<const T extends Readonly<Record<string, InputRequest>>>(requests: T): Promise<InputResponses<T>>;
}

/** One input a handler asks of the client: the client request's method and params. */
export type InputRequest =
  | { readonly method: 'elicitation/create'; readonly params: ElicitParams }
  | { readonly method: 'sampling/createMessage'; readonly params: Record<string, unknown> }
  | { readonly method: 'roots/list'; readonly params?: Readonly<Record<string, never>> };

/** The client's answer to one InputRequest: what elicit, sample or listRoots resolve with. */
export type InputResponse<R extends InputRequest = InputRequest> = R['method'] extends 'elicitation/create'
  ? ElicitResult
  : R['method'] extends 'roots/list'
    ? { roots: Array<{ uri: string; name?: string }> }
    : Record<string, unknown>;

/** Every answer of a named batch, under the key it was asked with. */
export type InputResponses<T extends Readonly<Record<string, InputRequest>>> = { -readonly [K in keyof T]: InputResponse<T[K]> };

/** What `ctx.elicit` asks: a form (a message and a restricted JSON Schema) or, with the client's `elicitation.url`, a URL to open. */
export type ElicitParams =
  | { mode?: 'form'; message: string; requestedSchema: Record<string, unknown> }
  | { mode: 'url'; message: string; url: string; elicitationId: string };

/** The user's answer to an elicitation. */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}
