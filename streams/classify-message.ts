/**
 * classifyMessage: the envelope check, in the contract's order, before any
 * method is looked at. Bad input becomes a ready reply or a drop, never a
 * throw.
 *
 * An id that is not a string, a number or null is refused first (-32600
 * with id null; a response carrying one is dropped): nothing downstream
 * stores, hashes or echoes it, so a deeply nested or huge structure in the
 * id position can never reach an encoder or a Map key.
 */
import { invalidParams, invalidRequest } from '../lib/errors.js';
import { isJsonRpcId, isPlainObject, type JsonRpcId, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';

export type Classified =
  | { readonly kind: 'invalid'; readonly reply: JsonRpcResponse }
  | { readonly kind: 'drop' }
  | { readonly kind: 'request'; readonly id: JsonRpcId; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | { readonly kind: 'notification'; readonly method: string; readonly params: Record<string, unknown> | undefined }
  | { readonly kind: 'response'; readonly id: JsonRpcId; readonly message: Record<string, unknown> };

const DROP: Classified = { kind: 'drop' };

export function classifyMessage(message: unknown): Classified {
  if (!isPlainObject(message)) {
    const what = Array.isArray(message) ? 'batch arrays are not supported' : 'a message must be a JSON object';
    return { kind: 'invalid', reply: invalidRequest(null, `Invalid Request: ${what}`) };
  }
  const hasId = 'id' in message && message.id !== undefined;
  const hasMethod = 'method' in message && message.method !== undefined;
  const isResponse = !hasMethod && ('result' in message || 'error' in message);
  if (hasId && !isJsonRpcId(message.id)) {
    return isResponse ? DROP : { kind: 'invalid', reply: invalidRequest(null, 'Invalid Request: id must be a string, a number or null') };
  }
  const id = (hasId ? message.id : null) as JsonRpcId;

  if (message.jsonrpc !== '2.0') {
    return hasId && !isResponse ? { kind: 'invalid', reply: invalidRequest(id, 'Invalid Request: jsonrpc must be "2.0"') } : DROP;
  }
  if (hasMethod && typeof message.method !== 'string') {
    return hasId ? { kind: 'invalid', reply: invalidRequest(id, 'Invalid Request: method must be a string') } : DROP;
  }
  let params: Record<string, unknown> | undefined;
  if (message.params !== undefined && message.params !== null) {
    if (!isPlainObject(message.params)) {
      return hasId && !isResponse ? { kind: 'invalid', reply: invalidParams(id, 'Invalid params: params must be an object') } : DROP;
    }
    params = message.params;
  }
  if (isResponse) return hasId ? { kind: 'response', id, message } : DROP;
  if (!hasMethod) return hasId ? { kind: 'invalid', reply: invalidRequest(id, 'Missing method') } : DROP;
  const method = message.method as string;
  return hasId ? { kind: 'request', id, method, params } : { kind: 'notification', method, params };
}
