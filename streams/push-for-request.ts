/**
 * pushForRequest: a message a callback sends while serving a request
 * (progress, a log line, a request to the client), to that request's
 * connection, tagged with the request, so a transport that routes by request
 * (Streamable HTTP's per-POST streams) delivers it on that request's stream.
 */
import type { JsonRpcNotification, JsonRpcRequest } from '../lib/protocol/jsonrpc.js';
import { withRelatedRequest } from '../lib/protocol/related.js';
import type { RequestScope, ServerCore } from './state/server-core.js';

export function pushForRequest(core: ServerCore, scope: RequestScope, message: JsonRpcRequest | JsonRpcNotification): void {
  core.connections.push(scope.connId, withRelatedRequest(message, scope.id));
}
