/**
 * listResult: a list method's reply, one page at a time, under the key the
 * method uses (`tools`, `resources`, `resourceTemplates`, `prompts`).
 */
import { invalidParams } from '../../../lib/errors.js';
import { resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { paginate } from './paginate.js';
import type { RequestScope, ServerCore } from '../../state/server-core.js';

export function listResult(core: ServerCore, scope: RequestScope, key: string, items: readonly unknown[]): JsonRpcResponse {
  const page = paginate(items, scope.params?.cursor, core.options.pageSize);
  if ('invalid' in page) return invalidParams(scope.id, 'Invalid cursor', { cursor: scope.params?.cursor });
  const result: Record<string, unknown> = { [key]: page.items };
  if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
  return resultResponse(scope.id, result);
}
