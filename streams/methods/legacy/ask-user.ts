/**
 * askUser: an ASK on tools/call. A connection that advertised elicitation at
 * initialize and has a live subscriber gets an elicitation/create request;
 * anything else gets the immediate deny saying it cannot be asked, with the
 * question as `prompt`.
 *
 * The parked call, and the tool an approval starts, end with the owner's
 * connection (its last subscriber leaving): no answer, the tool aborted.
 * In push mode the caller gets `null` at once and the eventual reply is
 * pushed; a refusal known at once (a full parking lot) is still the reply.
 *
 * A parked call keeps its request (arguments, `_meta`, id) for as long as the
 * user takes, so a request whose estimated heap size passes
 * `maxParkedCallBytes` is denied instead of parked: the parking caps then
 * bound bytes, not only calls.
 */
import { of, switchMap, takeUntil, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../../lib/deny-details.js';
import { toolDenied } from '../../../lib/errors.js';
import { principalField } from '../../../lib/events.js';
import { withRelatedRequest } from '../../../lib/protocol/related.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { retainedSize } from '../../../lib/retained-size.js';
import type { ToolDef } from '../../../lib/tool-def.js';
import type { RequestScope, ServerCore } from '../../state/server-core.js';
import { firstReply } from '../../reply-stream.js';
import { pipelineFailure } from '../../pipeline-failure.js';
import { runInWorker } from '../../run-tool.js';

export function askUser(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  prompt: string,
): Observable<JsonRpcResponse | null> {
  if (!core.connections.isLive(scope.connId)) {
    return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', DENY_DETAIL.cannotAskNotConnected, prompt)));
  }
  if (!isPlainObject(core.capabilities.get(scope.connId)?.elicitation)) {
    return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', DENY_DETAIL.cannotAskNoElicitation, prompt)));
  }
  const limit = core.options.maxParkedCallBytes;
  if (retainedSize([scope.id, scope.params], limit) > limit) {
    return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', `${DENY_DETAIL.tooLargeToPark} (max ${limit} bytes)`)));
  }

  const closed = (outcome: string) =>
    core.events.next({ type: 'elicitation_closed', connId: scope.connId, tool: tool.name, outcome, ...principalField(scope.principal) });
  const eventual$ = core.parking
    .park({
      owner: scope.connId,
      peer: scope.peer,
      tool: tool.name,
      prompt,
      push: (request) => {
        core.connections.push(scope.connId, withRelatedRequest(request, scope.id));
        core.events.next({
          type: 'elicitation_parked',
          connId: scope.connId,
          tool: tool.name,
          parked: core.parking.parkedCount(scope.connId),
          ...principalField(scope.principal),
        });
      },
    })
    .pipe(
      switchMap((verdict) => {
        closed(verdict.approved ? 'approved' : verdict.detail);
        return verdict.approved
          ? runInWorker(core, scope, tool, args)
          : of(resultResponse(scope.id, toolDenied(tool.name, 'ask', verdict.detail)));
      }),
      takeUntil(core.connections.exitOf(scope.connId)),
    );
  if (scope.mode === 'reply') return eventual$;
  return pushEventually(core, scope, eventual$);
}

/** Push mode: `null` now, and the eventual reply pushed to the connection; a cancel or the connection leaving ends it. */
export function pushEventually(core: ServerCore, scope: RequestScope, eventual$: Observable<JsonRpcResponse>): Observable<JsonRpcResponse | null> {
  let immediate: JsonRpcResponse | null = null;
  let synchronous = true;
  const cancellable$ = firstReply(eventual$, { table: core.cancellations, connId: scope.connId, requestId: scope.id }, (error) =>
    pipelineFailure(core, scope.connId, scope.id, error),
  );
  const subscription = cancellable$.subscribe((reply) => {
    if (synchronous) immediate = reply;
    else core.connections.push(scope.connId, reply);
  });
  synchronous = false;
  const state = core.connections.get(scope.connId);
  if (!subscription.closed && state !== undefined) {
    state.background.add(subscription);
    subscription.add(() => state.background.remove(subscription));
  } else if (!subscription.closed) {
    subscription.unsubscribe();
  }
  return of(immediate);
}
