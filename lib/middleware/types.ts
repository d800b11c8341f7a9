/**
 * Middleware: the user's own stages in the pipeline, as RxJS operators.
 *
 * A stage sees each admitted call (a callback method past the in-flight
 * bounds and the authorizer, inside its worker) and gets the call's reply
 * stream to transform: `tap` to log it, `map` to redact or bound it, a stream
 * of its own to answer instead (a cache hit, a refusal) without subscribing,
 * in which case the handler never runs. Whatever a stage does, the worker
 * around it keeps the contract: the first reply is the one sent, a stage that
 * errors or completes without one is `callback_crashed`, one that never
 * answers is `callback_timeout`, and unsubscription (every kind of
 * cancellation) reaches the handler's AbortSignal.
 */
import type { Principal } from '../auth/principal.js';
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';
import type { CallContext, ConnId, TransportKind } from '../context.js';
import type { Logger } from '../logger.js';
import type { JsonRpcErrorObject, JsonRpcId } from '../protocol/jsonrpc.js';
import type { ToolDef } from '../tool-def.js';

/**
 * The methods whose calls pass through the middleware: the callbacks a
 * registry serves, and any method an extension adds (lib/extension.ts), by
 * its own name (`skills/get`, ...).
 */
export type AdmittedMethod = 'tools/call' | 'resources/read' | 'prompts/get' | 'completion/complete' | (string & {});

/**
 * A call's reply without its JSON-RPC envelope: the result, or the error.
 * For tools/call the result is a CallToolResult. The server puts the
 * request's id on it, so a reply may be kept and sent again for another call.
 */
export type CallReply =
  | { readonly result: Record<string, unknown>; readonly error?: undefined }
  | { readonly error: JsonRpcErrorObject; readonly result?: undefined };

/**
 * One admitted call, as a stage sees it. Who is calling comes from the
 * server (the transport and its peer), never from what the client wrote.
 */
export interface AdmittedCall {
  readonly method: AdmittedMethod;
  readonly requestId: JsonRpcId;
  readonly connId: ConnId;
  readonly transport: TransportKind;
  /** The fairness key of the caller's peer (ConnectOptions.peer, else the connection id); `principal:<key>` when authenticated. */
  readonly peer: string;
  /** The verified caller, when the transport authenticated it (never anything the client wrote). */
  readonly principal: Principal | undefined;
  /** The request's params as the client sent them; do not change them. */
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** The tool's name (tools/call) or the prompt's (prompts/get). */
  readonly name: string | undefined;
  /** The URI read (resources/read). */
  readonly uri: string | undefined;
  /** The arguments (tools/call, prompts/get). */
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  /** The tool's definition (tools/call): its annotations say, e.g., whether it is read-only. */
  readonly tool: ToolDef | undefined;
  /** The context the handler gets: its `signal`, `log`, `progress`. */
  readonly context: CallContext;
  /**
   * The reply that refuses this call for `reason`, in the shape the contract
   * gives a failed callback: for tools/call an isError result whose text is
   * `Error: <reason>` (then `: <detail>`); for the read methods -32603 "MCP
   * callback failed" with `data: { error: reason, method, detail? }`.
   */
  refuse(reason: string, detail?: string): CallReply;
}

/** A stage for one call: an operator over that call's reply stream. */
export type CallStage = (call: AdmittedCall) => MonoTypeOperatorFunction<CallReply>;

/** What a middleware is given when its server is created. */
export interface MiddlewareSetup {
  /** The server's clock (its `scheduler` option): time a stage keeps must come from it. */
  readonly scheduler: SchedulerLike;
  /** The server's logger. */
  readonly logger: Logger;
}

/**
 * A middleware: set up once per server (so state such as a rate limit's
 * budgets belongs to that server), then a stage for every admitted call.
 */
export type Middleware = (setup: MiddlewareSetup) => CallStage;
