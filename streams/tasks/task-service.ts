/**
 * TaskService: a server's tasks. It decides, per tools/call, whether the call
 * runs as a task (the tool's `taskSupport`, the client's declaration on that
 * request, the `afterMs` policy), starts its TaskRun, and holds the store
 * (in memory, or the `tasks.store` option's) and the runs this process has.
 */
import { ConfigError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { TaskStore } from '../../lib/ports/task-store.js';
import { map, Observable, type SchedulerLike } from 'rxjs';
import { addToIndex, removeFromIndex } from '../../lib/set-index.js';
import { detailedTask } from './task-wire.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import { TASKS_EXTENSION_ID } from '../../lib/tasks/task-record.js';
import type { ResolvedTaskOptions } from '../../lib/tasks/task-options.js';
import { declaresTasks, type ToolDef } from '../../lib/tool-def.js';
import type { Eventual, LazyAbort } from '../worker.js';
import { clientDeclares } from '../extensions/client-declares.js';
import type { RequestScope, ServerCore, ServerTasks } from '../state/server-core.js';
import type { FirstAnswer, TaskDecision } from './task-created.js';
import { TaskRun } from './task-run.js';
import { approvalAsTask } from './approval-task.js';
import type { ApprovalCounts } from '../../lib/approval-counts.js';
import { supportsFormElicitation } from '../state/capability-table.js';


const STORE_METHODS = ['create', 'get', 'ask', 'answer', 'finish', 'cancel', 'follow'] as const;

export class TaskService implements ServerTasks {
  readonly store: TaskStore;
  /** Tasks whose handler runs on this process, by id. */
  readonly runs = new Map<string, TaskRun>();
  #core: ServerCore | undefined;

  constructor(
    readonly options: ResolvedTaskOptions,
    scheduler: SchedulerLike,
    logger: Logger,
    /** The server's approval caps, shared with legacy parking and MRTR tickets. */
    readonly counts: ApprovalCounts,
  ) {
    const setup = {
      ttlMs: options.ttlMs,
      pollIntervalMs: options.pollIntervalMs,
      maxTasks: options.maxTasks,
      maxTasksPerOwner: options.maxTasksPerOwner,
      maxRetainedBytes: options.maxRetainedBytes,
      scheduler,
      logger,
    };
    const store: unknown = options.store === null ? new MemoryTaskStore(setup) : options.store(setup);
    if (typeof store !== 'object' || store === null || !STORE_METHODS.every((name) => typeof (store as Record<string, unknown>)[name] === 'function')) {
      throw new ConfigError('tasks', `tasks.store must build a TaskStore (${STORE_METHODS.join(', ')})`);
    }
    this.store = store as TaskStore;
  }

  /** The server's core, given once it is built (the tasks extension is part of it). */
  attach(core: ServerCore): void {
    this.#core = core;
  }

  get core(): ServerCore {
    return this.#core!;
  }

  /**
   * Whether this tools/call runs as a task. 2026-07-28: the server's choice,
   * for a tool that supports one, on a request that declared the extension
   * (a `task` param is ignored). 2025-11-25: the client's, by `params.task`.
   */
  decide(scope: RequestScope, tool: ToolDef): TaskDecision {
    if (scope.era === 'legacy' && isPlainObject(scope.params?.task)) return declaresTasks(tool) ? 'task' : 'unsupported';
    if (!declaresTasks(tool)) return 'plain';
    if (scope.era === 'modern' && clientDeclares(this.core, scope, TASKS_EXTENSION_ID)) return 'task';
    return tool.taskSupport === 'required' ? 'missing' : 'plain';
  }

  /**
   * Whether an authorizer's ask on this request becomes an approval task: a
   * first round (no requestState) of a 2026-07-28 request that declared the
   * extension and form elicitation, unless `tasks.approvals` is `'round'`.
   */
  approvesAsTask(scope: RequestScope): boolean {
    return (
      this.options.approvals === 'task' &&
      scope.era === 'modern' &&
      scope.params?.requestState === undefined &&
      clientDeclares(this.core, scope, TASKS_EXTENSION_ID) &&
      supportsFormElicitation(scope.modern?.clientCapabilities.elicitation)
    );
  }

  /** The ask as an approval task (approval-task.ts): the task, or the deny when the caps or the store refuse it. */
  approve(scope: RequestScope, tool: ToolDef, args: Record<string, unknown>, prompt: string): Promise<FirstAnswer> {
    return approvalAsTask(this, scope, tool, args, prompt) as Promise<FirstAnswer>;
  }

  detailedFor(taskId: string, owner: string): Observable<Record<string, unknown> | undefined> {
    return this.store.get(taskId).pipe(map((task) => (task === undefined || task.owner !== owner ? undefined : detailedTask(task))));
  }

  /**
   * A task this process changed: the event bus tells every listen stream that
   * named it (on any node sharing the bus). A bus that throws loses the
   * notification, never the change: polling still sees it.
   */
  changed(taskId: string): void {
    try {
      this.core.options.eventBus.publish({ type: 'task_status', taskId });
    } catch (err) {
      this.core.options.logger.warn({ err, taskId }, 'the event bus refused a task status event');
    }
  }

  /**
   * Each change of `taskId` published by any node sharing the event bus (see
   * `changed`): what wakes a waiting 2025-11-25 tasks/result at once. A bus
   * that refuses a subscriber leaves the waiter to its polling.
   */
  changesOf(taskId: string): Observable<void> {
    return new Observable<void>((subscriber) => {
      try {
        const unsubscribe = this.core.options.eventBus.subscribe((event) => {
          if (event.type === 'task_status' && event.taskId === taskId) subscriber.next();
        });
        return typeof unsubscribe === 'function' ? unsubscribe : undefined;
      } catch (err) {
        this.core.options.logger.warn({ err, taskId }, 'the event bus refused a subscriber: tasks/result polls');
        return undefined;
      }
    });
  }

  /** The 2025-11-25 `capabilities.tasks` of initialize: tools/call may be a task; cancel; list when the store can. */
  legacyCapability(): Record<string, unknown> {
    return { ...(this.store.list === undefined ? {} : { list: {} }), cancel: {}, requests: { tools: { call: {} } } };
  }

  /**
   * Tasks whose owner is their connection itself (no principal, no peer:
   * stdio, in memory), by connection: nobody else can ever read, answer or
   * cancel them, so they end with it. Only unfinished ones are kept here.
   */
  private readonly connectionOwned = new Map<string, Set<string>>();

  /** A task is alive on this process; kept for its connection when the connection is its owner. */
  began(taskId: string, scope: RequestScope): void {
    if (scope.peer === scope.connId) addToIndex(this.connectionOwned, scope.connId, taskId);
  }

  /** A task of this process is over (finished, stopped). */
  ended(taskId: string, scope: RequestScope): void {
    if (scope.peer === scope.connId) removeFromIndex(this.connectionOwned, scope.connId, taskId);
  }

  connectionGone(connId: string): void {
    const owned = this.connectionOwned.get(connId);
    if (owned === undefined) return;
    this.connectionOwned.delete(connId);
    for (const taskId of owned) {
      this.store.cancel(taskId).subscribe({
        next: () => this.changed(taskId),
        error: (err: unknown) => this.core.options.logger.warn({ err, taskId }, 'a task of a closed connection could not be cancelled'),
      });
    }
  }


  /** Starts a task-bound call by the tool's policy, else the server's. */
  start(scope: RequestScope, tool: ToolDef, args: Record<string, unknown>, requestAbort: LazyAbort): Eventual<FirstAnswer> {
    const run = new TaskRun(this, scope, tool, args);
    const afterMs = tool.taskAfterMs ?? this.options.afterMs;
    // A 2025-11-25 client asked for a task and reads only a CreateTaskResult: no race there.
    return afterMs === 0 || scope.era === 'legacy' ? run.startAsTask() : run.startRacing(requestAbort, afterMs);
  }

  /** Tasks this process holds (a store that can say). */
  outstanding(): number | undefined {
    return this.store.outstanding?.();
  }

  /** `server.close()`: every run here stopped, the store closed. */
  close(): void {
    this.store.close?.();
  }
}
