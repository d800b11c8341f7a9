/**
 * What a task-bound call's handler answered, as the task's ending, and the
 * answer a call gets when its task could not be stored.
 */
import { callbackFailedToolResult, INTERNAL_ERROR } from '../../lib/errors.js';
import type { TaskEnding } from '../../lib/ports/task-store.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import type { CallToolResult } from '../../lib/tool-result.js';
import { StagedResponse } from '../through-middleware.js';

/** The handler's answer as the task's ending: a result is `completed`, a JSON-RPC error its middleware answered is `failed`. */
export function endingOf(answer: CallToolResult | StagedResponse): TaskEnding {
  if (!(answer instanceof StagedResponse)) return { status: 'completed', result: answer as unknown as Record<string, unknown> };
  const response = answer.response as { result?: unknown; error?: unknown };
  if (isPlainObject(response.error)) {
    const error = response.error as { code?: unknown; message?: unknown; data?: unknown };
    const code = typeof error.code === 'number' ? error.code : INTERNAL_ERROR;
    const message = typeof error.message === 'string' ? error.message : 'Internal error';
    return { status: 'failed', error: error.data === undefined ? { code, message } : { code, message, data: error.data }, statusMessage: message };
  }
  return { status: 'completed', result: isPlainObject(response.result) ? response.result : {} };
}

/** The answer when the store refused the task (a bound, or the store unavailable): the busy result, saying why. */
export function taskRefused(reason: string): CallToolResult {
  return callbackFailedToolResult('server_busy', undefined, `Error: server_busy: the task could not be stored (${reason})`) as unknown as CallToolResult;
}
