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

/** How a tools/call runs: a plain call, a task, or refused (-32021) because the tool needs a task the client cannot take. */
export type TaskDecision = 'plain' | 'task' | 'missing';
