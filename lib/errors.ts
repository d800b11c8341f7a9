/**
 * Every error code and error shape rxmcp puts on the wire is built here, so a
 * transport or a stage never invents one.
 */
import { errorResponse, type JsonRpcErrorObject, type JsonRpcErrorResponse, type JsonRpcId } from './protocol/jsonrpc.js';

/** JSON-RPC's parse error code. */
export const PARSE_ERROR = -32700;
/** JSON-RPC's invalid request code. */
export const INVALID_REQUEST = -32600;
/** JSON-RPC's method not found code. */
export const METHOD_NOT_FOUND = -32601;
/** JSON-RPC's invalid params code. */
export const INVALID_PARAMS = -32602;
/** JSON-RPC's internal error code. */
export const INTERNAL_ERROR = -32603;
/** Read-surface authorization deny (the contract's own code), on the legacy wire. */
export const AUTHORIZATION_REQUIRED = -32090;
/**
 * The same deny on the modern wire: 2026-07-28 reserves -32020..-32099 for the
 * spec and asks new application codes to stay outside -32768..-32000.
 */
export const AUTHORIZATION_REQUIRED_MODERN = -31090;
/** Modern era: an HTTP header disagrees with the body, or a required one is missing. */
export const HEADER_MISMATCH = -32020;
/** Modern era: handling the request needs a client capability the request did not declare. */
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
/** Modern era: the request names a protocol revision this server does not serve. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Why a callback produced no result; the names the contract puts on the wire. */
export type CallbackFailure = 'server_busy' | 'callback_timeout' | 'callback_crashed';

/**
 * A client-sent value as error text: a string as itself, a number, boolean,
 * null or undefined as its literal, anything else by its kind. Never
 * `String(value)`: a deeply nested array overflows the stack in join, and an
 * object with a `toString` key throws.
 */
export function shownValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function errorObject(code: number, message: string, data?: unknown): JsonRpcErrorObject {
  return data === undefined ? { code, message } : { code, message, data };
}

/** The `-32700` parse error reply (id `null`), for a frame that is not JSON: a transport's to send. */
export function parseError(detail?: string): JsonRpcErrorResponse {
  return errorResponse(null, errorObject(PARSE_ERROR, detail ? `Parse error: ${detail}` : 'Parse error'));
}

/** The `-32600` invalid request reply. */
export function invalidRequest(id: JsonRpcId, detail?: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(INVALID_REQUEST, detail ?? 'Invalid Request'));
}

/** The `-32601` method not found reply. */
export function methodNotFound(id: JsonRpcId, method: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(METHOD_NOT_FOUND, `Unknown method: ${method}`));
}

/** The `-32601` reply for an unknown tool (legacy era). */
export function toolNotFound(id: JsonRpcId, tool: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(METHOD_NOT_FOUND, `Tool not found: ${tool}`));
}

/** The `-32602` invalid params reply. */
export function invalidParams(id: JsonRpcId, message: string, data?: unknown): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(INVALID_PARAMS, message, data));
}

/**
 * A read method's callback failed: busy, timed out or crashed. `scope` says
 * which shared cap refused a busy call (`cluster` or `principal`, see
 * lib/ports/permits.ts); a busy call without one was refused by this process.
 */
export function callbackFailed(id: JsonRpcId, method: string, reason: CallbackFailure, scope?: string): JsonRpcErrorResponse {
  const data = scope === undefined ? { error: reason, method } : { error: reason, method, scope };
  return errorResponse(id, errorObject(INTERNAL_ERROR, 'MCP callback failed', data));
}

/**
 * subscriptions/listen refused before its acknowledgement, for a reason that
 * is not the request's fault: a subscription bound, a closing server, a
 * failed event bus, no connection to deliver to. `-32603` (no code of the
 * -32020..-32099 range the spec reserves is defined for it), told apart by
 * `data.error` (`too_many_subscriptions` with `data.scope` and `data.max`,
 * `server_closing`, `event_bus_failed`, `not_connected`).
 */
export function listenRefused(id: JsonRpcId, message: string, data: Record<string, unknown>): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(INTERNAL_ERROR, message, data));
}

/** The read authorizer's deny: `-32090` with `authorization_required: <method>` and the detail. */
export function readDenied(id: JsonRpcId, method: string, detail: string): JsonRpcErrorResponse {
  return errorResponse(
    id,
    errorObject(AUTHORIZATION_REQUIRED, `authorization_required: ${method}`, {
      error: 'authorization_required',
      method,
      detail,
    }),
  );
}

/** -32020: `detail` says which header is missing or disagrees with the body. */
export function headerMismatch(id: JsonRpcId, detail: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(HEADER_MISMATCH, `Header mismatch: ${detail}`));
}

/**
 * -32021: `requiredCapabilities` is ClientCapabilities-shaped (e.g.
 * `{ elicitation: {} }`), naming what the request would have had to declare.
 */
export function missingClientCapability(id: JsonRpcId, requiredCapabilities: Record<string, unknown>, detail: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: ${detail}`, { requiredCapabilities }));
}

/** -32022: the revisions this server serves (the modern list only) and the one the request named. */
export function unsupportedProtocolVersion(id: JsonRpcId, supported: readonly string[], requested: unknown): JsonRpcErrorResponse {
  return errorResponse(
    id,
    errorObject(UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${shownValue(requested)} (supported: ${supported.join(', ')})`, {
      supported: [...supported],
      requested: typeof requested === 'string' ? requested : shownValue(requested),
    }),
  );
}

/** The one public answer to a requestState that fails any check; the real reason goes only to the logger and events$. */
export const INVALID_REQUEST_STATE_MESSAGE = 'Invalid or expired requestState';

/**
 * A modern retry whose requestState is tampered, foreign, mis-bound, too big
 * or otherwise unusable: always the same -32602, so a client learns nothing
 * about which check failed.
 */
export function invalidRequestState(id: JsonRpcId): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(INVALID_PARAMS, INVALID_REQUEST_STATE_MESSAGE, { reason: 'invalid_request_state' }));
}

/** A network transport refused the HTTP request before any message reached the server. */
export const TRANSPORT_ERROR = -32000;

/** The body of such a refusal (bad session, full server, bad headers): a JSON-RPC error with no id. */
export function transportRefusal(message: string): JsonRpcErrorResponse {
  return errorResponse(null, errorObject(TRANSPORT_ERROR, message));
}

/** A text content item of an error result. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** A tool result with `isError: true`. */
export interface ErrorToolResult {
  content: [TextContent];
  isError: true;
  _meta?: Record<string, unknown>;
}

/** A tool result that reports failure to the model rather than to the protocol. */
export function errorToolResult(text: string): ErrorToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The `_meta` key of a tools/call busy result refused by a shared cap: `{ scope }`, as a read's `data.scope`. */
export const BUSY_META = 'rxmcp/busy';

/**
 * tools/call whose callback failed: busy, timed out or crashed. A busy call
 * a shared cap refused keeps the text and says which cap in
 * `_meta["rxmcp/busy"].scope` (a tool result has no `data`). `text`: a
 * crash's under the exposeErrors option (lib/crash-exposure.ts).
 */
export function callbackFailedToolResult(reason: CallbackFailure, scope?: string, text = `Error: ${reason}`): ErrorToolResult {
  const result = errorToolResult(text);
  return scope === undefined ? result : { ...result, _meta: { [BUSY_META]: { scope } } };
}

/**
 * A call a pipeline stage refused (rate_limited, response_too_large): the
 * shape of a failed callback, as a reply without its envelope. tools/call
 * answers an isError result, any other method -32603 with data.error.
 */
export function refusalReply(
  method: string,
  reason: string,
  detail?: string,
): { result: Record<string, unknown> } | { error: JsonRpcErrorObject } {
  if (method === 'tools/call') {
    return { result: { ...errorToolResult(detail === undefined ? `Error: ${reason}` : `Error: ${reason}: ${detail}`) } };
  }
  const data = detail === undefined ? { error: reason, method } : { error: reason, method, detail };
  return { error: errorObject(INTERNAL_ERROR, 'MCP callback failed', data) };
}

/**
 * The machine-readable deny of a tools/call: a result, not a JSON-RPC error.
 * `detail` says what happened (lib/deny-details.ts); `prompt` carries the
 * approval question when it could not be asked, so it is not lost.
 */
export function toolDenied(tool: string, decision: 'deny' | 'ask', detail: string, prompt?: string): ErrorToolResult {
  const body: Record<string, string> = { error: 'authorization_required', tool, decision, detail };
  if (prompt !== undefined) body.prompt = prompt;
  return errorToolResult(JSON.stringify(body));
}

/** Thrown by a tool handler to report a failure whose message the client may see. */
export class ToolError extends Error {
  override name = 'ToolError';
}

/** Thrown by createServer (and the network boot guards) on a configuration that must not start, and by Registry on a registration it refuses. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}

/** handleMessage's caller gave up waiting (its timeoutMs ran out or its signal aborted). */
export class CallerGoneError extends Error {
  override name = 'CallerGoneError';
}

/** ctx.elicit / ctx.sample / ctx.listRoots on a client that did not advertise the capability. */
export class ClientCapabilityError extends Error {
  override name = 'ClientCapabilityError';
}

/** What a handler on a modern request asked the client for: the request it would have sent, and the capability that needs. */
export interface InputNeed {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params: Record<string, unknown>;
  /** ClientCapabilities-shaped: what the request has to declare, e.g. `{ elicitation: {} }`. */
  readonly requiredCapabilities: Record<string, unknown>;
  /** Whether this request declared that capability (if so, only an input_required result could serve it). */
  readonly declared: boolean;
}

/**
 * ctx.elicit / ctx.sample / ctx.listRoots on a modern request: the server
 * never sends a request to the client there. A ClientCapabilityError, so a
 * handler that catches those for a legacy client adapts the same way; one
 * it does not catch is answered by the modern input stage (-32021 for now).
 */
export class InputNeededError extends ClientCapabilityError {
  override name = 'InputNeededError';
  constructor(
    message: string,
    readonly need: InputNeed,
  ) {
    super(message);
  }
}

/** A server-to-client request that got an error response or no answer in time. */
export class ClientRequestError extends Error {
  override name = 'ClientRequestError';
  constructor(
    message: string,
    readonly code?: number,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * Thrown by a resource (template) reader for a URI it does not know, e.g.
 * `demo://notes/9`: answered like an unregistered URI, -32602.
 */
export class ResourceNotFoundError extends Error {
  override name = 'ResourceNotFoundError';
}

/**
 * Thrown by an extension method's handler (lib/extension.ts) for a JSON-RPC
 * error of the method's own, e.g. `new ExtensionError(-32602, 'Skill not
 * found: ...', { uri })`: answered with exactly that code, message and data.
 */
export class ExtensionError extends Error {
  override name = 'ExtensionError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** An extension method's error reply, from the ExtensionError its handler threw. */
export function extensionErrorReply(id: JsonRpcId, error: ExtensionError): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(error.code, error.message, error.data));
}

/** -32021 for a method of an extension the client did not declare, naming it in `requiredCapabilities.extensions`. */
export function extensionNotDeclared(id: JsonRpcId, extensionId: string, method: string): JsonRpcErrorResponse {
  return missingClientCapability(id, { extensions: { [extensionId]: {} } }, `extension ${extensionId} (for ${method})`);
}

/** 2025-11-25: a tool whose taskSupport is `required`, called without `params.task` (-32601, as that revision says). */
export function taskNotAsked(id: JsonRpcId, tool: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(METHOD_NOT_FOUND, `Tool ${tool} must be called as a task (params.task)`));
}

/** 2025-11-25: `params.task` on a tool that does not run as a task (-32601, as that revision says). */
export function taskNotSupported(id: JsonRpcId, tool: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(METHOD_NOT_FOUND, `Tool ${tool} does not run as a task`));
}

/** A reply the server could not serialise (a BigInt, a cycle): the request still gets an answer. */
export function internalError(id: JsonRpcId, detail: string): JsonRpcErrorResponse {
  return errorResponse(id, errorObject(INTERNAL_ERROR, `Internal error: ${detail}`));
}
