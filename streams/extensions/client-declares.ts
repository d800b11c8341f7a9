/**
 * clientDeclares: whether the client of one request declared an extension.
 * A modern request says so itself (`clientCapabilities.extensions[id]` in its
 * envelope, for this request only); a legacy request relies on what its
 * connection's `initialize` advertised, as the capability table keeps it
 * (only the server's own extension ids are kept there).
 */
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';

export function clientDeclares(core: ServerCore, scope: RequestScope, extensionId: string): boolean {
  if (scope.era === 'modern') {
    const extensions = scope.modern?.clientCapabilities.extensions;
    return isPlainObject(extensions) && Object.hasOwn(extensions, extensionId) && isPlainObject(extensions[extensionId]);
  }
  return core.capabilities.get(scope.connId)?.extensions?.has(extensionId) === true;
}
