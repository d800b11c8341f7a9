import type { RequestScope } from '../state/server-core.js';

/**
 * Who may answer a modern request's question: the connection on stdio,
 * WebSocket and memory (one peer each), the peer on HTTP, where every
 * request is its own exchange (`principal:<key>` when authenticated).
 */
export function requestOwner(scope: RequestScope): string {
  return scope.transport === 'http' || scope.transport === 'sse' ? scope.peer : scope.connId;
}
