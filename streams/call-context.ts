/** The context object a callback receives, built from the request's scope. */
import type { AuthorizationContext, CallContext } from '../lib/context.js';
import { isPlainObject } from '../lib/protocol/jsonrpc.js';
import type { RequestScope } from './server-core.js';

export function authorizationContext(scope: RequestScope): AuthorizationContext {
  return { connId: scope.connId, transport: scope.transport };
}

export function callContext(scope: RequestScope, signal: AbortSignal): CallContext {
  const meta = scope.params?._meta;
  return {
    connId: scope.connId,
    transport: scope.transport,
    signal,
    requestId: scope.id,
    meta: isPlainObject(meta) ? meta : undefined,
  };
}
