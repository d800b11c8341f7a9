/**
 * The `tasks` server option: whether the server speaks the tasks extension,
 * and its policy and bounds. Off by default; `tasks: true` (or an object)
 * turns it on, and so does registering, before `createServer`, a tool whose
 * `taskSupport` is `optional` or `required`.
 */
import { ConfigError } from '../errors.js';
import { isPlainObject } from '../protocol/jsonrpc.js';
import { nonNegativeIntegerOption, positiveIntegerOption } from '../option-checks.js';
import type { TaskStoreFactory } from '../ports/task-store.js';

/** The `tasks` server option's object form: the policy that makes a call a task, the store, and its bounds. */
export interface TaskOptions {
  /**
   * When an optional-task call becomes a task: `0` (the default) makes it one
   * before its handler starts; `N` runs the handler as a plain call and makes
   * it a task only if it has not answered within N ms (before that, its
   * ctx.elicit is an ordinary input round: MRTR on 2026-07-28). A tool's own
   * `taskAfterMs` overrides it.
   */
  afterMs?: number | undefined;
  /** How long a task is kept from its creation; default 3,600,000 (one hour). At its end an unfinished task's work is stopped. */
  ttlMs?: number | undefined;
  /** The poll interval suggested to clients; default 1000. */
  pollIntervalMs?: number | undefined;
  /** Tasks held at once; default 10,000. */
  maxTasks?: number | undefined;
  /** Tasks one owner (principal, else peer, else connection) holds at once; default 1,000. */
  maxTasksPerOwner?: number | undefined;
  /** Bytes the stored results and questions may retain in total; default 64 MiB. */
  maxRetainedBytes?: number | undefined;
  /** Builds a shared store (rxmcp/redis `redisTaskStore`); default in memory. */
  store?: TaskStoreFactory | undefined;
  /**
   * An authorizer's `{ ask }` on a 2026-07-28 request that declared the tasks
   * extension and form elicitation: `'task'` (the default) makes it a task in
   * `input_required` carrying the approval form, answered by `tasks/update`;
   * `'round'` keeps the MRTR input_required round.
   */
  approvals?: 'task' | 'round' | undefined;
}

/** TaskOptions with every default filled in (what a server holds). */
export interface ResolvedTaskOptions {
  readonly afterMs: number;
  readonly ttlMs: number;
  readonly pollIntervalMs: number;
  readonly maxTasks: number;
  readonly maxTasksPerOwner: number;
  readonly maxRetainedBytes: number;
  readonly store: TaskStoreFactory | null;
  readonly approvals: 'task' | 'round';
}

/** The option read: null when the server does not speak tasks (`undefined` or `false`). */
export function resolveTaskOptions(option: unknown): ResolvedTaskOptions | null {
  if (option === undefined || option === false) return null;
  if (option !== true && !isPlainObject(option)) throw new ConfigError('tasks', 'tasks must be true, false or an object of task options');
  const given = (option === true ? {} : option) as TaskOptions;
  const known = new Set(['afterMs', 'ttlMs', 'pollIntervalMs', 'maxTasks', 'maxTasksPerOwner', 'maxRetainedBytes', 'store', 'approvals']);
  for (const key of Object.keys(given)) if (!known.has(key)) throw new ConfigError('tasks', `tasks.${key} is not a task option (${[...known].join(', ')})`);
  if (given.store !== undefined && typeof given.store !== 'function') throw new ConfigError('tasks', 'tasks.store must be a function that builds a TaskStore');
  if (given.approvals !== undefined && given.approvals !== 'task' && given.approvals !== 'round') throw new ConfigError('tasks', "tasks.approvals must be 'task' or 'round'");
  return {
    afterMs: nonNegativeIntegerOption('tasks.afterMs', given.afterMs, 0),
    ttlMs: positiveIntegerOption('tasks.ttlMs', given.ttlMs, 3_600_000),
    pollIntervalMs: positiveIntegerOption('tasks.pollIntervalMs', given.pollIntervalMs, 1000),
    maxTasks: positiveIntegerOption('tasks.maxTasks', given.maxTasks, 10_000),
    maxTasksPerOwner: positiveIntegerOption('tasks.maxTasksPerOwner', given.maxTasksPerOwner, 1000),
    maxRetainedBytes: positiveIntegerOption('tasks.maxRetainedBytes', given.maxRetainedBytes, 64 * 1024 * 1024),
    store: given.store ?? null,
    approvals: given.approvals ?? 'task',
  };
}
