/**
 * The task store: where tasks live between the request that created them and
 * the polls, answers and cancels that follow, on this process (the in-memory
 * default, lib/tasks/memory-task-store.ts) or shared by every node of a
 * cluster (cluster/redis/task-store.ts). Its operations are Observables that
 * emit once, like the other ports.
 *
 * The store, not the process running a task, is the truth:
 * - `create` answers only once the task is stored: a `tasks/get` that follows
 *   finds it on any node;
 * - it is bounded (tasks in total, per owner, and the bytes their results and
 *   questions retain) and forgets each task `ttlMs` after its creation;
 * - the first terminal write wins (`finish`, `cancel`, the expiry): a result
 *   is stored once, and a task cancelled is never completed after;
 * - `tasks/update` answers go to the store (`answer`), which keeps the keys
 *   still outstanding and forwards what it accepted to the process running
 *   the task through that process's `follow` subscription, with cancels.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import type { InputRequest } from '../mrtr/approval-form.js';
import type { Logger } from '../logger.js';
import type { TaskError, TaskRecord } from '../tasks/task-record.js';

/** What a new task is made of; the store adds its id, status and times. */
export interface NewTask {
  readonly owner: string;
  readonly method: string;
  readonly name: string;
}

/** `create`'s answer: the stored task, or why there is no room (the refusal's text for the client). */
export type TaskCreation = { readonly created: true; readonly task: TaskRecord } | { readonly created: false; readonly reason: string };

/** How a task ended, as its runner reports it. */
export type TaskEnding =
  | { readonly status: 'completed'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly status: 'failed'; readonly error: TaskError; readonly statusMessage?: string }
  | { readonly status: 'cancelled'; readonly statusMessage?: string };

/** What the process running a task hears from the store while it follows the task. */
export type TaskSignal =
  /** Answers `tasks/update` brought for keys that were outstanding (each key at most once). */
  | { readonly kind: 'answers'; readonly responses: Readonly<Record<string, unknown>> }
  /** The task was cancelled, expired or lost: stop the work. */
  | { readonly kind: 'stop'; readonly reason: 'cancelled' | 'expired' | 'closed' };

/** `answer`'s outcome: the keys taken (others ignored, as the spec asks), or the task is not there. */
export type TaskAnswer = { readonly found: true; readonly accepted: readonly string[] } | { readonly found: false };

/** A page of one owner's tasks; `nextCursor` when there are more. */
export interface TaskPage {
  readonly tasks: readonly TaskRecord[];
  readonly nextCursor?: string | undefined;
}

/** The `tasks` store of a server: in memory by default; the `store` option of `tasks` builds another. */
export interface TaskStore {
  /** Stores a new `working` task for `task.owner`, or refuses (a bound). Emits only once it is readable by `get`. */
  create(task: NewTask): Observable<TaskCreation>;
  /** The task, or undefined when unknown or expired. The caller checks the owner. */
  get(taskId: string): Observable<TaskRecord | undefined>;
  /** The runner asks the client: `requests` added to the outstanding ones (status `input_required`); false when the task is gone or ended. */
  ask(taskId: string, requests: Readonly<Record<string, InputRequest>>): Observable<boolean>;
  /** `tasks/update`: responses for outstanding keys taken (then `working` when none is left) and forwarded to the runner; other keys ignored. */
  answer(taskId: string, responses: Readonly<Record<string, unknown>>): Observable<TaskAnswer>;
  /** The runner's ending; true when this write made the task terminal (false: it already was, or is gone). */
  finish(taskId: string, ending: TaskEnding): Observable<boolean>;
  /** `tasks/cancel`: `cancelled` unless already terminal, and a stop to the runner; false when unknown. Idempotent. */
  cancel(taskId: string): Observable<boolean>;
  /**
   * The runner follows its task: answers and the stop, until it unsubscribes.
   * A shared store keeps the runner's lease alive while it follows, and fails
   * a task whose runner is gone (a node that died) within one lease.
   */
  follow(taskId: string): Observable<TaskSignal>;
  /**
   * One page of `owner`'s tasks, oldest first, after `cursor` (a previous
   * page's `nextCursor`, opaque). Only the 2025-11-25 `tasks/list` uses it; a
   * store without it makes the server leave `tasks.list` out of its
   * capabilities (2026-07-28 has no listing at all).
   */
  list?(owner: string, cursor: string | undefined, limit: number): Observable<TaskPage>;
  /** Tasks this process holds (in memory); `server.stats()` reports it as `tasks`. A shared store leaves it out. */
  outstanding?(): number;
  /** `server.close()`: stop every follower here, free timers, refuse creation. Idempotent. */
  close?(): void;
}

/** What a server hands a store factory: its bounds, clock and logger. */
export interface TaskStoreSetup {
  /** How long a task lives from its creation (`tasks.ttlMs`). */
  readonly ttlMs: number;
  /** The poll interval every task suggests (`tasks.pollIntervalMs`). */
  readonly pollIntervalMs: number;
  /** Tasks held at once, in total and per owner. */
  readonly maxTasks: number;
  readonly maxTasksPerOwner: number;
  /** Bytes the stored results, questions and answers may retain in total (lib/retained-size.ts estimates). */
  readonly maxRetainedBytes: number;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/** The `tasks.store` option: builds the store a server uses instead of the in-memory one. */
export type TaskStoreFactory = (setup: TaskStoreSetup) => TaskStore;
