/**
 * Running a tool's handler: its outcome read as a CallToolResult, a ToolError
 * as an isError result with its message, any other throw as a crash (logged,
 * never returned to the client).
 */
import { catchError, defer, map, of, throwError, type Observable } from 'rxjs';
import type { CallContext } from '../lib/context.js';
import { callbackFailedToolResult, errorToolResult } from '../lib/errors.js';
import type { ToolDef } from '../lib/tool-def.js';
import { toCallToolResult, type CallToolResult } from '../lib/tool-result.js';
import { callContext } from './call-context.js';
import { fromCallback } from './from-callback.js';
import { reportFailure, workerOptions } from './read-surface.js';
import type { RequestScope, ServerCore } from './server-core.js';
import { worker } from './worker.js';

function isToolError(error: unknown): error is Error {
  return error instanceof Error && error.name === 'ToolError';
}

/** The handler's outcome as a result; a ToolError is a result too, any other throw a crash. */
export function runHandler(tool: ToolDef, args: Record<string, unknown>, ctx: CallContext): Observable<CallToolResult> {
  return defer(() => fromCallback(tool.handler(args, ctx))).pipe(
    map(toCallToolResult),
    catchError((error: unknown) => (isToolError(error) ? of(errorToolResult(error.message)) : throwError(() => error))),
  );
}

/** Runs the handler in its own worker; busy, timeout and crash become isError results. */
export function runInWorker(core: ServerCore, scope: RequestScope, tool: ToolDef, args: Record<string, unknown>): Observable<CallToolResult> {
  return worker(workerOptions(core, scope), (signal) => runHandler(tool, args, callContext(scope, signal))).pipe(
    map((outcome) => {
      if (outcome.ok) return outcome.value;
      reportFailure(core, scope, outcome);
      return callbackFailedToolResult(outcome.reason);
    }),
  );
}

