/**
 * withResultMembers: a request's reply encoder with what extensions add to
 * its method's successful results (Extension.resultMembers) applied first,
 * then the era's own encoding. A member already in the result is never
 * overwritten, and an error reply passes untouched. Only built when some
 * extension adds to this method, so other requests keep their encoder as is.
 */
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { ExtensionResultMember, ReplyEncoder, RequestScope, ServerCore } from '../state/server-core.js';
import { clientDeclares } from './client-declares.js';

export function withResultMembers(
  members: readonly ExtensionResultMember[],
  encode: ReplyEncoder | null,
): ReplyEncoder {
  return (core: ServerCore, scope: RequestScope, reply: JsonRpcResponse | null) => {
    let out = reply;
    if (out !== null && 'result' in out && isPlainObject(out.result)) {
      const result: Record<string, unknown> = { ...out.result };
      for (const { id, add } of members) {
        const ctx = { era: scope.era, method: scope.method, params: scope.params, declared: clientDeclares(core, scope, id) };
        const added = add(result, ctx);
        if (!isPlainObject(added)) continue;
        for (const [key, value] of Object.entries(added)) if (!Object.hasOwn(result, key)) result[key] = value;
      }
      out = resultResponse(out.id, result);
    }
    return encode === null ? out : encode(core, scope, out);
  };
}
