/**
 * Running a tool's handler: the arguments checked against its inputSchema
 * (the handler gets what the check hands back: a Standard Schema's output
 * value, else the arguments as sent), its outcome read as a CallToolResult
 * (and checked against its outputSchema), a ToolError as an isError result
 * with its message, any other throw as a crash (logged, never returned to
 * the client). A synchronous handler with synchronous checks has its result
 * now; a check or a handler that answers later makes it Later (worker.ts).
 */
import type { CallContext } from '../lib/context.js';
import { errorToolResult } from '../lib/errors.js';
import type { CallReply, CallStage } from '../lib/middleware/types.js';
import { ProgressUpdate } from '../lib/progress.js';
import { resultResponse, type JsonRpcId, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../lib/tool-def.js';
import type { CheckOutcome, SchemaCheck } from '../lib/tool-schemas.js';
import { toCallToolResult, toStructuredToolResult, type CallToolResult } from '../lib/tool-result.js';
import { StagedCall } from './admitted-call.js';
import { callContext } from './call-context.js';
import { isLaterAnswer, isThenable, Later, thenEventual, type Eventual, type LazyAbort, worker } from './worker.js';
import { responseOf, StagedResponse, throughMiddleware } from './through-middleware.js';
import { failedToolResult, reportFailure, workerOptions } from './worker-scope.js';
import type { RequestScope, ServerCore } from './state/server-core.js';
import type { ReplyStream } from './reply-stream.js';
import type { HeldAdmission } from './held-admission.js';

/** A ProgressUpdate an Observable handler emits goes out as progress, and is never the result. */
function progressFilter(ctx: CallContext): (value: unknown) => boolean {
  return (value) => {
    if (!(value instanceof ProgressUpdate)) return true;
    ctx.progress(value.progress, value.total, value.message);
    return false;
  };
}

function isToolError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ToolError';
}

/** The shaped result once its structuredContent is checked; a Standard Schema's output value replaces it. */
function checkedResult(tool: ToolDef, result: CallToolResult, outcome: unknown, checked: CheckOutcome): CallToolResult {
  if (checked === null) return result;
  if (typeof checked === 'string') {
    return errorToolResult(`Tool ${tool.name} returned structuredContent that does not match its outputSchema: ${checked}`);
  }
  if (checked.value === result.structuredContent) return result;
  // A plain object outcome's text is its JSON, so it follows the value; a CallToolResult's content is the handler's own.
  return result.structuredContent === outcome
    ? toStructuredToolResult(checked.value)
    : { ...result, structuredContent: checked.value as Record<string, unknown> };
}

/**
 * `undefined` (no return, or an async handler that forgot one) keeps its
 * wire answer, empty content, but is most often a bug: said once per tool.
 */
function noteUndefined(core: ServerCore, tool: ToolDef): void {
  if (core.toolsWarnedUndefined.has(tool)) return;
  core.toolsWarnedUndefined.add(tool);
  core.options.logger.warn(
    { tool: tool.name },
    `tool ${tool.name} returned undefined, answered with empty content (return { content: [] } to mean that); said once per tool`,
  );
}

function shapeResult(core: ServerCore, tool: ToolDef, checkOutput: SchemaCheck | null, outcome: unknown): Eventual<CallToolResult> {
  if (outcome === undefined && tool.outputSchema === undefined) noteUndefined(core, tool);
  const result = tool.outputSchema === undefined ? toCallToolResult(outcome) : toStructuredToolResult(outcome);
  if (checkOutput === null || result.isError === true) return result;
  if (result.structuredContent === undefined) {
    return errorToolResult(`Tool ${tool.name} declares an outputSchema but returned no structuredContent`);
  }
  const checked = checkOutput(result.structuredContent);
  if (!isThenable(checked)) return checkedResult(tool, result, outcome, checked);
  return new Later<CallToolResult>(checked, (last) => checkedResult(tool, result, outcome, last as CheckOutcome), toolErrorResult);
}

/** A ToolError is the tool's own isError result; any other throw stays a crash. */
function toolErrorResult(error: unknown): CallToolResult {
  if (isToolError(error)) return errorToolResult(error.message);
  throw error;
}

/**
 * Arguments checked, then the handler's outcome as a result: now for a
 * synchronous handler, else one Later whose steps shape the last value (one
 * object per call in flight, not a stack of them).
 */
export function runHandler(core: ServerCore, tool: ToolDef, args: Record<string, unknown>, ctx: CallContext): Eventual<CallToolResult> {
  const schemas = core.options.registry.toolSchemas(tool.name);
  const checkOutput = schemas?.checkOutput ?? null;
  let checked: CheckOutcome | PromiseLike<CheckOutcome>;
  try {
    checked = schemas?.checkInput?.(args) ?? null;
  } catch (error) {
    return toolErrorResult(error);
  }
  if (!isThenable(checked)) return runChecked(core, tool, args, checked, checkOutput, ctx);
  return new Later<CallToolResult>(checked, (last) => runChecked(core, tool, args, last as CheckOutcome, checkOutput, ctx), toolErrorResult);
}

function runChecked(
  core: ServerCore,
  tool: ToolDef,
  args: Record<string, unknown>,
  checked: CheckOutcome,
  checkOutput: SchemaCheck | null,
  ctx: CallContext,
): Eventual<CallToolResult> {
  if (typeof checked === 'string') return errorToolResult(`Invalid arguments for tool ${tool.name}: ${checked}`);
  const handlerArgs = checked === null ? args : (checked.value as Record<string, unknown>);
  let answer: unknown;
  try {
    answer = tool.handler(handlerArgs, ctx);
    if (!isLaterAnswer(answer)) return shapeResult(core, tool, checkOutput, answer);
  } catch (error) {
    return toolErrorResult(error);
  }
  // An Observable that emits and never completes times out: its worker counts what it emitted, so the timeout can say so.
  return new HandlerAnswer(answer, core, tool, checkOutput, progressFilter(ctx));
}

/** A HandlerAnswer's last value as the result (called as its method, see Later). */
function shapeLast(this: HandlerAnswer, last: unknown): Eventual<CallToolResult> {
  try {
    return shapeResult(this.core, this.tool, this.checkOutput, last);
  } catch (error) {
    return toolErrorResult(error);
  }
}

/**
 * A handler's Promise or Observable answer: a Later that carries what its
 * shaping needs, so a waiting call holds no closure and context for it.
 */
class HandlerAnswer extends Later<CallToolResult> {
  constructor(
    answer: ReplyStream<unknown> | PromiseLike<unknown>,
    readonly core: ServerCore,
    readonly tool: ToolDef,
    readonly checkOutput: SchemaCheck | null,
    onValue: (value: unknown) => boolean,
  ) {
    super(answer, shapeLast, toolErrorResult, onValue);
  }
}

function asReply(result: CallToolResult): CallReply {
  return { result: result as unknown as Record<string, unknown> };
}

function throughStages(
  core: ServerCore,
  scope: RequestScope,
  stages: readonly CallStage[],
  tool: ToolDef,
  args: Record<string, unknown>,
  ctx: CallContext,
  abort: LazyAbort,
): Eventual<StagedResponse> {
  const call = new StagedCall(core, scope, abort, { name: tool.name, arguments: args, tool }, ctx);
  const reply = throughMiddleware(stages, call, () => thenEventual(runHandler(core, tool, args, ctx), asReply));
  return thenEventual(reply, (staged) => new StagedResponse(responseOf(scope.id, staged)));
}

/**
 * An authorized tools/call: the handler, through the middleware when the
 * server has any (then the answer is already a response). Without
 * middleware this is runHandler and nothing more. A task's run passes its
 * own context (tasks/task-run.ts).
 */
export function runTool(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  abort: LazyAbort,
  ctx: CallContext = callContext(core, scope, abort),
): Eventual<CallToolResult | StagedResponse> {
  const stages = core.options.middleware;
  return stages === null ? runHandler(core, tool, args, ctx) : throughStages(core, scope, stages, tool, args, ctx, abort);
}

/** What runTool answered, as the response to `id`. */
export function toolResponse(id: JsonRpcId, answer: CallToolResult | StagedResponse): JsonRpcResponse {
  return answer instanceof StagedResponse ? answer.response : resultResponse(id, answer);
}

/**
 * Runs an approved tool in its own worker; busy, timeout and crash become
 * isError results. With `held` (the admission the approval's own call was
 * admitted with, see held-admission.ts) it runs under that, asking for no
 * slot or permit.
 */
export function runInWorker(
  core: ServerCore,
  scope: RequestScope,
  tool: ToolDef,
  args: Record<string, unknown>,
  held?: HeldAdmission,
): ReplyStream<JsonRpcResponse> {
  return worker(
    workerOptions(core, scope),
    (abort) => runTool(core, scope, tool, args, abort),
    (outcome) => {
      if (outcome.ok) return toolResponse(scope.id, outcome.value);
      reportFailure(core, scope, outcome);
      return resultResponse(scope.id, failedToolResult(core, outcome));
    },
    held,
  );
}
