/**
 * Telemetry: what the server reports on `server.events$`. An event naming a
 * connection of an authenticated caller also names its principal, by key
 * only: never a claim, never a token.
 */
import type { Principal } from './auth/principal.js';
import type { ConnId, TransportKind } from './context.js';
import type { CallbackFailure } from './errors.js';
import type { JsonRpcId } from './protocol/jsonrpc.js';

/**
 * How a request ended, as its caller saw it: `ok` a result, `tool_error` a
 * tools/call result with `isError: true` (a ToolError, a deny, a crash, a
 * timeout), `error` a JSON-RPC error, `cancelled` no reply at all (cancelled,
 * caller or connection gone), `pending` a `null` answered now whose reply is
 * pushed later (a parked tools/call through handleMessage).
 */
export type CallOutcome = 'ok' | 'tool_error' | 'error' | 'cancelled' | 'pending';

/** One request answered (or ended unanswered): enough to build counters and latency histograms. */
export interface CallCompletedEvent {
  readonly type: 'call_completed';
  readonly connId: ConnId;
  readonly transport: TransportKind;
  readonly method: string;
  /** The tool or prompt the request named, its resource URI, or its completion ref; undefined for lists, ping, initialize. */
  readonly name: string | undefined;
  readonly requestId: JsonRpcId;
  readonly outcome: CallOutcome;
  /** The JSON-RPC error code when `outcome` is `error`. */
  readonly errorCode?: number;
  /** On the server's scheduler: from routing to the reply (or the end without one). */
  readonly durationMs: number;
  /** UTF-8 bytes of the request and of the reply as JSON (0 when there is no reply). */
  readonly requestBytes: number;
  readonly replyBytes: number;
  /** The caller's principal key, when authenticated. */
  readonly principal?: string;
}

/** A callback that produced no result. The log line has the same and the error's stack; this has no stack. */
export interface CallbackFailedEvent {
  readonly type: 'callback_failed';
  readonly connId: ConnId;
  readonly method: string;
  /** As in CallCompletedEvent: the tool, prompt, resource URI or completion ref. */
  readonly name: string | undefined;
  readonly requestId: JsonRpcId;
  readonly reason: CallbackFailure;
  /** What was thrown, for `callback_crashed`. */
  readonly error?: { readonly name: string; readonly message: string };
  readonly principal?: string;
}

/** `{ principal: key }` for a principal, nothing otherwise: spread into an event. */
export function principalField(principal: Principal | undefined): { readonly principal?: string } {
  return principal === undefined ? {} : { principal: principal.key };
}

/**
 * The life of MRTR approval tickets and the requestState checks. `owner` is
 * a salted tag of the ticket's holder (stable within one server), never the
 * key itself; no prompt or token text is ever reported.
 */
export type ApprovalEvent =
  | { readonly type: 'approval_issued'; readonly owner: string; readonly outstanding: number }
  | { readonly type: 'approval_evicted'; readonly owner: string; readonly detail: string }
  | { readonly type: 'approval_expired'; readonly owner: string }
  | { readonly type: 'approval_redeemed'; readonly owner: string }
  /** A retry's requestState failed a check; the client saw only the fixed -32602 (or the timed-out deny for `expired`). */
  | { readonly type: 'request_state_rejected'; readonly method: string; readonly name: string; readonly reason: string };

/** Everything `server.events$` emits: `call_completed`, `callback_failed`, approval events, and the other events the server reports. */
export type ServerEvent =
  | {
      readonly type: 'client_capabilities_evicted';
      readonly connId: ConnId;
      readonly size: number;
      readonly maxClientCapabilities: number;
      readonly liveSubscriber: boolean;
      readonly principal?: string;
    }
  | { readonly type: 'elicitation_parked'; readonly connId: ConnId; readonly tool: string; readonly parked: number; readonly principal?: string }
  | { readonly type: 'elicitation_closed'; readonly connId: ConnId; readonly tool: string; readonly outcome: string; readonly principal?: string }
  | CallbackFailedEvent
  | CallCompletedEvent
  | ApprovalEvent;
