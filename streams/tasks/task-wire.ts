/**
 * A stored task as the 2026-07-28 wire shows it: the CreateTaskResult a
 * tools/call answers with (`resultType: "task"`, flat, nothing inlined), and
 * the DetailedTask of `tasks/get` and `notifications/tasks` (the result when
 * completed, with its `resultType: "complete"`, the error when failed, the
 * outstanding `inputRequests` when input_required). Times are ISO 8601 on
 * the store's clock.
 */
import type { TaskRecord } from '../../lib/tasks/task-record.js';

/** The results this module made: the only ones the modern encoder lets carry `resultType: "task"` (a handler cannot forge one). */
const createTaskResults = new WeakSet<object>();

export function isCreateTaskResult(result: object): boolean {
  return createTaskResults.has(result);
}

/** The names of the two durations: 2026-07-28 puts the unit in them, 2025-11-25 did not. */
const MODERN_NAMES = { ttl: 'ttlMs', poll: 'pollIntervalMs' } as const;
const LEGACY_NAMES = { ttl: 'ttl', poll: 'pollInterval' } as const;

/** The Task members every shape shares, its durations named as the revision names them. */
function taskMembers(task: TaskRecord, names: { readonly ttl: string; readonly poll: string } = MODERN_NAMES): Record<string, unknown> {
  const members: Record<string, unknown> = {
    taskId: task.taskId,
    status: task.status,
    createdAt: new Date(task.createdAt).toISOString(),
    lastUpdatedAt: new Date(task.lastUpdatedAt).toISOString(),
    [names.ttl]: task.ttlMs,
    [names.poll]: task.pollIntervalMs,
  };
  if (task.statusMessage !== undefined) members.statusMessage = task.statusMessage;
  return members;
}

/** The answer to the tools/call that created the task. */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  const result = { resultType: 'task', ...taskMembers(task) };
  createTaskResults.add(result);
  return result;
}

/** `tasks/get`: the task with what its status inlines. */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const detailed = taskMembers(task);
  if (task.status === 'input_required' && task.inputRequests !== undefined) detailed.inputRequests = task.inputRequests;
  // The result as the call would have answered it on this wire: a CallToolResult, whose resultType 2026-07-28 requires.
  if (task.status === 'completed' && task.result !== undefined) detailed.result = { ...task.result, resultType: 'complete' };
  if (task.status === 'failed' && task.error !== undefined) detailed.error = task.error;
  return detailed;
}

/** The `_meta` key that ties a 2025-11-25 message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The 2025-11-25 Task: `ttl` and `pollInterval` (milliseconds), nothing inlined. */
export function legacyTask(task: TaskRecord): Record<string, unknown> {
  return taskMembers(task, LEGACY_NAMES);
}

/** The 2025-11-25 CreateTaskResult: the task under `task`. */
export function legacyCreateTaskResult(task: TaskRecord): Record<string, unknown> {
  return { task: legacyTask(task) };
}
