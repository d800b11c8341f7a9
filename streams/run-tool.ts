/**
 * Running a tool's handler: its outcome read as a CallToolResult, a ToolError
 * as an isError result with its message, any other throw as a crash (logged,
 * never returned to the client).
 */
import { catchError, defer, filter, isObservable, map, of, throwError, type Observable } from 'rxjs';
import type { CallbackReturn } from '../lib/callback.js';
import { ProgressUpdate } from '../lib/progress.js';
import type { CallContext } from '../lib/context.js';
import { callbackFailedToolResult, errorToolResult } from '../lib/errors.js';
import type { ToolDef } from '../lib/tool-def.js';
import { toCallToolResult, toStructuredToolResult, type CallToolResult } from '../lib/tool-result.js';
import { callContext } from './call-context.js';
import { fromCallback } from './from-callback.js';
import { reportFailure, workerOptions } from './read-surface.js';
import type { RequestScope, ServerCore } from './server-core.js';
import { worker } from './worker.js';

/** An Observable handler's ProgressUpdate values go out as progress, never as the result. */
function withProgress<T>(outcome: CallbackReturn<T>, ctx: CallContext): CallbackReturn<T> {
  if (!isObservable(outcome)) return outcome;
  return outcome.pipe(
    filter((value) => {
      if (!(value instanceof ProgressUpdate)) return true;
      ctx.progress(value.progress, value.total, value.message);
      return false;
    }),
  );
}

function isToolError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ToolError';
}

/** Arguments checked against the inputSchema, then the handler's outcome as a result (checked against the outputSchema). */
export function runHandler(core: ServerCore, tool: ToolDef, args: Record<string, unknown>, ctx: CallContext): Observable<CallToolResult> {
  const schemas = core.options.registry.toolSchemas(tool.name);
  const inputProblem = schemas?.checkInput?.(args) ?? null;
  if (inputProblem !== null) return of(errorToolResult(`Invalid arguments for tool ${tool.name}: ${inputProblem}`));
  const checkOutput = schemas?.checkOutput ?? null;
  return defer(() => fromCallback(withProgress(tool.handler(args, ctx), ctx))).pipe(
    map((outcome) => {
      const result = tool.outputSchema === undefined ? toCallToolResult(outcome) : toStructuredToolResult(outcome);
      if (checkOutput === null || result.isError === true) return result;
      if (result.structuredContent === undefined) {
        return errorToolResult(`Tool ${tool.name} declares an outputSchema but returned no structuredContent`);
      }
      const outputProblem = checkOutput(result.structuredContent);
      return outputProblem === null
        ? result
        : errorToolResult(`Tool ${tool.name} returned structuredContent that does not match its outputSchema: ${outputProblem}`);
    }),
    catchError((error: unknown) => (isToolError(error) ? of(errorToolResult(error.message)) : throwError(() => error))),
  );
}

/** Runs the handler in its own worker; busy, timeout and crash become isError results. */
export function runInWorker(core: ServerCore, scope: RequestScope, tool: ToolDef, args: Record<string, unknown>): Observable<CallToolResult> {
  return worker(workerOptions(core, scope), (signal) => runHandler(core, tool, args, callContext(core, scope, signal))).pipe(
    map((outcome) => {
      if (outcome.ok) return outcome.value;
      reportFailure(core, scope, outcome);
      return callbackFailedToolResult(outcome.reason);
    }),
  );
}

