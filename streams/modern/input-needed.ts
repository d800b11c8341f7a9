/**
 * What a modern request gets when serving it needs the client's input: the
 * one place that decides it, so serving it with MRTR (`input_required`
 * results) is a change here and nowhere else.
 *
 * - A callback let an InputNeededError through (ctx.elicit, ctx.sample or
 *   ctx.listRoots on a modern request): -32021, `data.requiredCapabilities`
 *   naming the capability. Only a legacy client is ever sent a request.
 * - A tool authorizer answered ASK: the seed's deny, with the question as
 *   `prompt` and the detail `approval needs MRTR (not yet supported)`.
 */
import { of, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { InputNeededError, missingClientCapability, toolDenied } from '../../lib/errors.js';
import { resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../../lib/tool-def.js';
import type { RequestScope, ServerCore } from '../server-core.js';

/** The reply to a failed callback that was only asking for input, or undefined for any other failure. */
export function inputNeededReply(_core: ServerCore, scope: RequestScope, error: unknown): JsonRpcResponse | undefined {
  if (!(error instanceof InputNeededError)) return undefined;
  return missingClientCapability(scope.id, error.need.requiredCapabilities, error.message);
}

/** An ASK verdict on a modern tools/call. */
export function askOverModern(
  _core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  _args: Record<string, unknown>,
  prompt: string,
): Observable<JsonRpcResponse | null> {
  return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', DENY_DETAIL.approvalNeedsMrtr, prompt)));
}
