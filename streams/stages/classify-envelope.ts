/**
 * classifyEnvelope: each message's JSON-RPC envelope checked, in the
 * contract's order (classifyMessage, below), before anything else reads it: a
 * request, a notification, a response to one of the server's own requests,
 * something to drop, or an invalid message with the error it earns. Bad
 * input becomes that error, never a throw; a message whose very reading
 * throws (a direct caller's getter or Proxy) is answered as an internal
 * error (id null) and logged.
 *
 * ```
 * incoming:  --m1-----m2-----m3--|     m1 a request, m2 [1,2], m3 a response
 * result:    --i1-----i2-----i3--|     i.classified: request, invalid(-32600 batch), response
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import { invalidParams, invalidRequest } from '../../lib/errors.js';
import type { Classified } from '../../lib/protocol/classified.js';
import { isJsonRpcId, isPlainObject, type JsonRpcId } from '../../lib/protocol/jsonrpc.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import type { ServerCore } from '../state/server-core.js';
import { type Incoming, perMessage } from './incoming.js';

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

/** Fills `incoming.classified`; returns it. */
function classifyIncoming(core: ServerCore, incoming: Incoming): Incoming {
  try {
    incoming.classified = classifyMessage(incoming.message);
  } catch (error) {
    incoming.classified = { kind: 'invalid', reply: pipelineFailure(core, incoming.origin.connId, null, error) };
  }
  return incoming;
}

export function classifyEnvelope(core: ServerCore): OperatorFunction<Incoming, Incoming> {
  return perMessage(
    (incoming: Incoming) => classifyIncoming(core, incoming),
    (error) => reportPipelineFailure(core, '', error),
  );
}
