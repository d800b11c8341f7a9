/**
 * tools/call, in the contract's order:
 * 1. the sensitive backstop (no authorizer + sensitive tool: deny), then the
 *    tool's `requiredScopes` when the call has a principal (deny
 *    `insufficient_scope:<scopes>`; on HTTP the edge answered 403 before);
 * 2. in a worker, the tool authorizer, and on allow the handler itself;
 * 3. an unknown tool is -32601 unless `unknownToolReply` names it (-32602
 *    on the modern wire, modern/encode.ts);
 * 4. the handler's outcome as a CallToolResult, through the server's
 *    middleware when it has any (see through-middleware.ts).
 * An ask parks the call on a legacy request (see ask-user.ts), and an
 * approved call runs in a fresh worker under the same bounds; on a modern
 * request see modern/input-needed.ts.
 */
import { from, map, of, type Observable } from 'rxjs';
import type { Verdict } from '../../../lib/authorizers.js';
import { DENY_DETAIL } from '../../../lib/deny-details.js';
import { errorToolResult, extensionNotDeclared, invalidParams, taskNotAsked, taskNotSupported, toolDenied, toolNotFound } from '../../../lib/errors.js';
import { TASKS_EXTENSION_ID } from '../../../lib/tasks/task-record.js';
import { TaskCreated, type FirstAnswer } from '../../tasks/task-created.js';
import { createTaskResult, legacyCreateTaskResult } from '../../tasks/task-wire.js';
import { insufficientScopeDetail, scopesAllow } from '../../../lib/auth/target-scopes.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { isSensitiveTool } from '../../../lib/tool-def.js';
import type { CallToolResult } from '../../../lib/tool-result.js';
import { authorize } from '../../authorize.js';
import { failedToolResult, reportAuthorizerFault, reportFailure } from '../../worker-scope.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';
import { WorkerSource, type WorkerOutcome, type LazyAbort, isLater, thenEventual, type Eventual } from '../../worker.js';
import type { Admission } from '../../state/admission.js';
import type { AdmissionKeeper } from '../../held-admission.js';
import type { ConnId } from '../../../lib/context.js';
import type { DeadlineQueue } from '../../../lib/deadline-queue.js';
import type { ToolDef } from '../../../lib/tool-def.js';
import { askUser } from '../legacy/ask-user.js';
import { runTool, toolResponse } from '../../run-tool.js';
import type { StagedResponse } from '../../through-middleware.js';
import { askOverModern, inputNeededReply } from '../../modern/input-needed.js';
import { replayReady, replayReply } from '../../modern/replay.js';

/** A call's answer as its reply: the CreateTaskResult of the era when it became a task. */
function firstReply(scope: RequestScope, answer: FirstAnswer): JsonRpcResponse {
  if (!(answer instanceof TaskCreated)) return toolResponse(scope.id, answer);
  return resultResponse(scope.id, scope.era === 'modern' ? createTaskResult(answer.task) : legacyCreateTaskResult(answer.task));
}

/** The authorizer's answer when it was not a plain allow for a known tool: what to do instead of running it. */
class Refusal {
  constructor(readonly verdict: Verdict) {}
}

function unknownTool(core: ServerCore, scope: RequestScope, name: string): JsonRpcResponse {
  let text: unknown;
  try {
    text = core.options.unknownToolReply?.(name);
  } catch (err) {
    // It runs outside any worker: a throw would leave the call unanswered and end the connection.
    core.options.logger.error({ connId: scope.connId, tool: name, err }, 'unknownToolReply threw');
  }
  return typeof text === 'string' ? resultResponse(scope.id, errorToolResult(text)) : toolNotFound(scope.id, name);
}

type ToolAnswer = CallToolResult | StagedResponse | Refusal | TaskCreated;

/**
 * One tools/call's worker: the tool authorizer, then the handler, then the
 * reply. A class, not a body and a reply closure over a shared context plus
 * an options object: 1000 calls may wait at once, each holding this.
 */
class ToolCall extends WorkerSource<ToolAnswer, JsonRpcResponse | null> {
  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly name: string,
    private readonly args: Record<string, unknown>,
    private readonly tool: ToolDef | undefined,
    /** The tasks extension decided this call runs as a task (decided once, in callTool). */
    private readonly asTask: boolean,
  ) {
    super();
  }

  get admission(): Admission {
    return this.core.admission;
  }

  get connId(): ConnId {
    return this.scope.connId;
  }

  get peer(): string {
    return this.scope.peer;
  }

  get deadlines(): DeadlineQueue {
    return this.core.deadlines;
  }

  work(abort: LazyAbort): Eventual<ToolAnswer> {
    const verdict = authorize(this.core.options.authorizer, this.name, this.args, this.scope);
    // A verdict here now (a synchronous authorizer) needs no closure to wait for it.
    if (!isLater(verdict)) return this.afterVerdict(verdict, abort);
    return thenEventual(verdict, (last): Eventual<ToolAnswer> => this.afterVerdict(last, abort));
  }

  private afterVerdict(verdict: Verdict, abort: LazyAbort): Eventual<ToolAnswer> {
    const { core, scope, tool } = this;
    // Only a modern request can be a replay round (modern/replay.ts): a legacy one skips the lookup.
    if (verdict.kind !== 'allow' || tool === undefined || (scope.era === 'modern' && !replayReady(core, scope))) return new Refusal(verdict);
    // A tool that may run as a task, for a client that said it can take one (tasks/task-service.ts).
    if (this.asTask) return core.tasks!.start(scope, tool, this.args, abort);
    return runTool(core, scope, tool, this.args, abort);
  }

  reply(outcome: WorkerOutcome<ToolAnswer>, admission?: AdmissionKeeper): JsonRpcResponse | Observable<JsonRpcResponse | null> {
    const { core, scope, tool, name } = this;
    // A handler's unanswered input call ends the round, whatever it did after; a refused
    // requestState (replayReady false, the handler never ran) is the fixed -32602 (modern/replay.ts).
    const round = scope.era === 'modern' ? replayReply(scope) : undefined;
    if (round !== undefined) return round;
    if (!outcome.ok) {
      const needed = inputNeededReply(core, scope, outcome.error);
      if (needed !== undefined) return needed;
      reportFailure(core, scope, outcome);
      return resultResponse(scope.id, failedToolResult(core, outcome));
    }
    if (!(outcome.value instanceof Refusal)) return firstReply(scope, outcome.value);
    const verdict = outcome.value.verdict;
    reportAuthorizerFault(core, scope, verdict);
    if (verdict.kind === 'deny') return resultResponse(scope.id, toolDenied(name, 'deny', verdict.detail));
    if (tool === undefined || verdict.kind !== 'ask') return unknownTool(core, scope, name);
    // A legacy client is asked with elicitation/create (parked, holding nothing); a modern one cannot be
    // sent a request: its retry may keep this worker's admission for the run its approval starts.
    if (scope.era === 'modern') {
      // An approval that may outlive the request waits as a task (tasks/approval-task.ts), holding nothing here.
      if (core.tasks?.approvesAsTask(scope) === true) return from(core.tasks.approve(scope, tool, this.args, verdict.prompt)).pipe(map((answer) => firstReply(scope, answer)));
      return askOverModern(core, scope, tool, this.args, verdict.prompt, admission);
    }
    return askUser(core, scope, tool, this.args, verdict.prompt);
  }
}

export const callTool: MethodHandler = (core, scope) => {
  const params = scope.params;
  if (params === undefined) return of(invalidParams(scope.id, 'tools/call requires params'));
  const name = params.name;
  if (typeof name !== 'string') return of(invalidParams(scope.id, 'tools/call requires a string name'));
  const rawArgs = params.arguments ?? {};
  if (!isPlainObject(rawArgs)) return of(invalidParams(scope.id, 'tools/call arguments must be an object'));
  const args = rawArgs;
  const tool = core.options.registry.tool(name);
  const authorizer = core.options.authorizer;
  if (tool !== undefined && authorizer === null && isSensitiveTool(tool)) {
    return of(resultResponse(scope.id, toolDenied(name, 'deny', DENY_DETAIL.sensitiveToolUnguarded)));
  }
  if (tool !== undefined && !scopesAllow(scope.principal, tool.requiredScopes)) {
    return of(resultResponse(scope.id, toolDenied(name, 'deny', insufficientScopeDetail(tool.requiredScopes!))));
  }
  // A tool that must run as a task, called without one (-32021 naming the extension; -32601 on 2025-11-25, as
  // that revision says), or a 2025-11-25 task asked of a tool that does not run as one (-32601).
  const decision = tool === undefined || core.tasks === null ? 'plain' : core.tasks.decide(scope, tool);
  if (decision === 'missing') {
    return of(scope.era === 'modern' ? extensionNotDeclared(scope.id, TASKS_EXTENSION_ID, `tools/call ${name}`) : taskNotAsked(scope.id, name));
  }
  if (decision === 'unsupported') return of(taskNotSupported(scope.id, name));

  return new ToolCall(core, scope, name, args, tool, decision === 'task');
};
