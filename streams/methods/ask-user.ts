/**
 * askUser: an ASK on tools/call. A connection that advertised elicitation at
 * initialize and has a live subscriber gets an elicitation/create request;
 * anything else gets the immediate deny with the prompt as its detail.
 *
 * The parked call, and the tool an approval starts, end with the owner's
 * connection (its last subscriber leaving): no answer, the tool aborted.
 * In push mode the caller gets `null` at once and the eventual reply is
 * pushed; a refusal known at once (a full parking lot) is still the reply.
 */
import { map, of, switchMap, takeUntil, type Observable } from 'rxjs';
import { toolDenied } from '../../lib/errors.js';
import { principalField } from '../../lib/events.js';
import { withRelatedRequest } from '../../lib/protocol/related.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../../lib/tool-def.js';
import type { RequestScope, ServerCore } from '../server-core.js';
import { firstReply } from '../cancellation.js';
import { runInWorker } from '../run-tool.js';

export function askUser(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  prompt: string,
): Observable<JsonRpcResponse | null> {
  const capabilities = core.capabilities.get(scope.connId);
  const canAsk = isPlainObject(capabilities?.elicitation) && core.connections.isLive(scope.connId);
  if (!canAsk) return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', prompt)));

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
          : of(toolDenied(tool.name, 'ask', verdict.detail));
      }),
      map((result) => resultResponse(scope.id, result)),
      takeUntil(core.connections.exitOf(scope.connId)),
    );
  if (scope.mode === 'reply') return eventual$;
  return pushEventually(core, scope, eventual$);
}

function pushEventually(core: ServerCore, scope: RequestScope, eventual$: Observable<JsonRpcResponse>): Observable<JsonRpcResponse | null> {
  let immediate: JsonRpcResponse | null = null;
  let synchronous = true;
  const cancellable$ = firstReply(eventual$, { table: core.cancellations, connId: scope.connId, requestId: scope.id });
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
