/**
 * What a modern request gets when serving it needs the client's input: the
 * one place that decides it (MRTR, `input_required` results).
 *
 * - A callback let an InputNeededError through (ctx.elicit, ctx.sample or
 *   ctx.listRoots on a modern request for a capability the request did not
 *   declare, or on a method that cannot answer input_required): -32021,
 *   `data.requiredCapabilities` naming the capability. A declared one on
 *   tools/call, resources/read or prompts/get is a replay round instead
 *   (modern/replay.ts).
 * - A tool authorizer answered ASK: without a declared (form) elicitation
 *   capability -32021, or with `askWithoutElicitation: 'deny'` the legacy
 *   path's deny (cannotAskNoElicitation, the question as `prompt`), no
 *   ticket taken either way; else round 1 issues an approval ticket
 *   (`input_required` with the approval form), and the retry redeems it
 *   (mrtr-approval.ts): approved runs the tool once in a worker, a deny
 *   answer is the seed's deny, a bad requestState the fixed -32602. The
 *   retry keeps the admission (slot and permit) its tools/call worker was
 *   admitted with through the ticket's take and into the approved run
 *   (held-admission.ts), so a ticket spent always has its run's permit:
 *   concurrent retries of one ticket cannot take it from the winner
 *   between the take and the run. tools-call.ts re-runs the authorizer on
 *   every retry, so this runs only while the decision is still an ask. The
 *   approved run does not replay its handler's own input calls (a limit of
 *   this version: they fail the run rather than spend a second approval).
 */
import { defer, finalize, of, switchMap, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { InputNeededError, invalidRequestState, missingClientCapability, toolDenied } from '../../lib/errors.js';
import { resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../../lib/tool-def.js';
import { issueApproval, redeemApproval, type ApprovalAsk, type ApprovalStep } from '../mrtr-approval.js';
import { supportsFormElicitation } from '../state/capability-table.js';
import type { ReplyStream } from '../reply-stream.js';
import { runInWorker } from '../run-tool.js';
import type { AdmissionKeeper, HeldAdmission } from '../held-admission.js';
import { withoutReplay } from './replay.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import { requestOwner } from './request-owner.js';

/** The reply to a failed callback that was only asking for input, or undefined for any other failure. */
export function inputNeededReply(_core: ServerCore, scope: RequestScope, error: unknown): JsonRpcResponse | undefined {
  if (!(error instanceof InputNeededError)) return undefined;
  return missingClientCapability(scope.id, error.need.requiredCapabilities, error.message);
}

/** The request's params without the MRTR retry fields: what an approved tool run sees. */
export function withoutRetryFields(scope: RequestScope): RequestScope {
  if (scope.params === undefined) return scope;
  const { inputResponses: _responses, requestState: _state, ...params } = scope.params;
  return { ...scope, params };
}

/**
 * An ASK verdict on a modern tools/call. `admission` is the call's worker's
 * (tools-call.ts): a retry keeps it until its step is answered, handing it
 * to the approved run; the first round holds none while the user decides.
 */
export function askOverModern(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  prompt: string,
  admission?: AdmissionKeeper,
): Observable<JsonRpcResponse | null> {
  if (!supportsFormElicitation(scope.modern?.clientCapabilities.elicitation)) {
    // The same deny legacy's ask-user.ts answers a connection without elicitation.
    if (core.options.askWithoutElicitation === 'deny') {
      return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', DENY_DETAIL.cannotAskNoElicitation, prompt)));
    }
    return of(
      missingClientCapability(scope.id, { elicitation: {} }, `the request did not declare the elicitation capability, so ${tool.name} cannot be approved`),
    );
  }
  const ask: ApprovalAsk = { method: 'tools/call', target: tool.name, arguments: args, holder: requestOwner(scope), peer: scope.peer, prompt };
  const requestState = scope.params?.requestState;
  if (requestState === undefined) return issueApproval(core.approvals, ask).pipe(switchMap((step) => answerStep(core, scope, tool, args, step)));
  // Kept now, while the worker's reply is being made; given back once the answer is out, or the call is
  // cancelled or fails, unless the approved run took it on and gave it back first (it is given back once).
  const held = admission?.keep();
  const retry = { ...ask, requestState, inputResponses: scope.params?.inputResponses };
  const answered$ = defer(() => redeemApproval(core.approvals, retry)).pipe(switchMap((step) => answerStep(core, scope, tool, args, step, held)));
  return held === undefined ? answered$ : answered$.pipe(finalize(() => held.unsubscribe()));
}

function answerStep(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  step: ApprovalStep,
  held?: HeldAdmission,
): ReplyStream<JsonRpcResponse | null> {
  switch (step.step) {
    case 'input_required':
      return of(resultResponse(scope.id, step.result));
    case 'approved':
      // One approval, one run: a handler asking for input during it is not resumed (that would need the approval again).
      // Under the admission the retry was admitted with: a taken ticket is never refused a permit.
      return runInWorker(core, withoutReplay(withoutRetryFields(scope)), tool, args, held);
    case 'denied':
      return of(resultResponse(scope.id, toolDenied(tool.name, 'ask', step.detail)));
    case 'invalid':
      return of(invalidRequestState(scope.id));
  }
}
