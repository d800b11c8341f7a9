/**
 * JSON-RPC 2.0 message shapes as rxmcp sees them on the wire.
 *
 * Inbound messages are `unknown` until `classifyMessage` has looked at them;
 * these types describe what the server itself emits.
 */

/**
 * A request id: a string, a number or null (JSON-RPC 2.0). Anything else is
 * refused at the envelope, so an id the server stores, hashes or echoes is
 * always one of these and always encodes.
 */
export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: JsonRpcId;
  error: JsonRpcErrorObject;
}

/** A JSON-RPC response: a result or an error. */
export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;

/** A JSON-RPC request. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

/** A JSON-RPC notification. */
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

/** Anything the server sends: replies, server-to-client requests, notifications. */
export type OutboundMessage = JsonRpcResponse | JsonRpcRequest | JsonRpcNotification;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` may be a request id: a string, a finite number or null (JSON has no other numbers). */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || value === null || (typeof value === 'number' && Number.isFinite(value));
}

export function resultResponse(id: JsonRpcId, result: unknown): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

export function notification(method: string, params?: Record<string, unknown>): JsonRpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}
