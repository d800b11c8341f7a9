/**
 * What starting a task-bound tools/call answers the request with: the
 * handler's own answer (it came before the call became a task), or
 * TaskCreated. A leaf module, so the server's core can name these without
 * importing the tasks machinery.
 */
import type { TaskRecord } from '../../lib/tasks/task-record.js';
import type { CallToolResult } from '../../lib/tool-result.js';
import type { StagedResponse } from '../through-middleware.js';

/** The request's answer when the call became a task. */
export class TaskCreated {
  constructor(readonly task: TaskRecord) {}
}

/** The creating request's answer: the handler's own (it came in time), or the task. */
export type FirstAnswer = CallToolResult | StagedResponse | TaskCreated;

/**
 * How a tools/call runs: a plain call; a task; `missing`: the tool needs a
 * task the request did not ask for (-32021 on 2026-07-28, -32601 on
 * 2025-11-25); `unsupported`: a 2025-11-25 request asked a task of a tool that
 * does not run as one (-32601).
 */
export type TaskDecision = 'plain' | 'task' | 'missing' | 'unsupported';
