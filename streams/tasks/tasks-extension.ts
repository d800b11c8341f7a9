/**
 * The tasks extension's methods, built on the extension API like any user's,
 * one store behind both revisions:
 *
 * - 2026-07-28: `tasks/get` (the DetailedTask: result, error or
 *   inputRequests inlined), `tasks/update` (answers; an empty ack),
 *   `tasks/cancel` (an empty ack, idempotent); `tasks/result` and
 *   `tasks/list` do not exist there (-32601). -32021 for a request that did
 *   not declare the extension.
 * - 2025-11-25: `tasks/get` (the Task alone), `tasks/result` (waits for the
 *   end; the result with the related-task `_meta`, or the JSON-RPC error),
 *   `tasks/list` (the caller's own tasks, paged; when the store can list),
 *   `tasks/cancel` (the Task, now cancelled; -32602 for a finished one, as
 *   that revision says).
 *
 * Each is a read (the read authorizer gates it, on its params) and bound to
 * the task's owner: a task id is not a capability, so another owner's task
 * is "not found", exactly as an unknown one (-32602), and never listed.
 */
import { catchError, first, map, merge, mergeMap, of, tap, timer, type Observable } from 'rxjs';
import { ExtensionError, INTERNAL_ERROR, INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY } from '../../lib/errors.js';
import type { Extension, ExtensionCallContext, ExtensionMethod } from '../../lib/extension.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { retainedSize } from '../../lib/retained-size.js';
import { isTerminal, TASKS_EXTENSION_ID, type TaskRecord } from '../../lib/tasks/task-record.js';
import { wellFormedAnswer } from '../modern/replay.js';
import { detailedTask, legacyTask, RELATED_TASK_META } from './task-wire.js';
import type { TaskService } from './task-service.js';

/** Longest task id accepted: ours are about 30 characters. */
const MAX_TASK_ID_LENGTH = 256;
/** Most bytes one tasks/update's inputResponses may hold once parsed (retained-size.ts estimate). */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How often a 2025-11-25 tasks/result looks at a task run elsewhere (one of this process's wakes it at once). */
const RESULT_POLL_MS = 250;

function taskIdOf(method: string, params: Readonly<Record<string, unknown>>): string {
  const taskId = params.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) {
    throw new ExtensionError(INVALID_PARAMS, `${method} needs params.taskId, a task id string`);
  }
  return taskId;
}

function notFound(): ExtensionError {
  return new ExtensionError(INVALID_PARAMS, 'Failed to retrieve task: Task not found');
}

/** 2026-07-28 serves tasks/* only to a request that declared the extension (2025-11-25 has no such declaration). */
function requireDeclared(ctx: ExtensionCallContext): void {
  if (ctx.era === 'modern' && !ctx.declared) {
    throw new ExtensionError(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: extension ${TASKS_EXTENSION_ID}`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION_ID]: {} } },
    });
  }
}

/** The caller's own task, else the same -32602 as for an unknown id. */
function ownTask(service: TaskService, taskId: string, ctx: ExtensionCallContext): Observable<TaskRecord> {
  return service.store.get(taskId).pipe(
    map((task) => {
      if (task === undefined || task.owner !== ctx.owner) throw notFound();
      return task;
    }),
  );
}

/** The answers worth handing over: for a key still outstanding, of the shape its question needs; the rest ignored, as the spec asks. */
function usableResponses(task: TaskRecord, responses: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const usable: Record<string, unknown> = {};
  const outstanding = task.inputRequests ?? {};
  for (const [key, value] of Object.entries(responses)) {
    const request = Object.hasOwn(outstanding, key) ? outstanding[key] : undefined;
    if (request !== undefined && wellFormedAnswer(request.method, value)) usable[key] = value;
  }
  return usable;
}

/** 2025-11-25 tasks/result: what the request would have answered, once the task has ended. */
function finalAnswer(task: TaskRecord): Record<string, unknown> {
  if (task.status === 'completed') {
    const result = task.result ?? {};
    const meta = isPlainObject(result._meta) ? result._meta : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { taskId: task.taskId } } };
  }
  if (task.status === 'failed' && task.error !== undefined) throw new ExtensionError(task.error.code, task.error.message, task.error.data);
  throw new ExtensionError(INTERNAL_ERROR, `Task ${task.taskId} was cancelled`);
}

function getTask(service: TaskService): ExtensionMethod {
  return {
    requiresDeclaration: false,
    handler: (params, ctx) => {
      requireDeclared(ctx);
      return ownTask(service, taskIdOf('tasks/get', params), ctx).pipe(map(ctx.era === 'modern' ? detailedTask : legacyTask));
    },
  };
}

function updateTask(service: TaskService): ExtensionMethod {
  return {
    eras: ['modern'],
    handler: (params, ctx) => {
      const taskId = taskIdOf('tasks/update', params);
      const responses = params.inputResponses;
      if (!isPlainObject(responses)) throw new ExtensionError(INVALID_PARAMS, 'tasks/update needs params.inputResponses, an object of answers by key');
      if (retainedSize(responses, MAX_RESPONSE_BYTES) > MAX_RESPONSE_BYTES) {
        throw new ExtensionError(INVALID_PARAMS, `tasks/update inputResponses are larger than ${MAX_RESPONSE_BYTES} bytes`);
      }
      return ownTask(service, taskId, ctx).pipe(
        mergeMap((task) => {
          const usable = usableResponses(task, responses);
          if (Object.keys(usable).length === 0) return of({});
          return service.store.answer(taskId, usable).pipe(
            map(() => {
              service.changed(taskId);
              return {};
            }),
          );
        }),
      );
    },
  };
}

function cancelTask(service: TaskService): ExtensionMethod {
  return {
    requiresDeclaration: false,
    handler: (params, ctx) => {
      requireDeclared(ctx);
      const taskId = taskIdOf('tasks/cancel', params);
      const cancel = (): Observable<boolean> => service.store.cancel(taskId).pipe(tap(() => service.changed(taskId)));
      if (ctx.era === 'modern') return ownTask(service, taskId, ctx).pipe(mergeMap(cancel), map(() => ({})));
      return ownTask(service, taskId, ctx).pipe(
        mergeMap((task) => {
          if (isTerminal(task.status)) throw new ExtensionError(INVALID_PARAMS, `Task ${taskId} has already ended (${task.status}); it cannot be cancelled`);
          return cancel();
        }),
        mergeMap(() => ownTask(service, taskId, ctx)),
        map(legacyTask),
      );
    },
  };
}

function taskResult(service: TaskService): ExtensionMethod {
  return {
    eras: ['legacy'],
    requiresDeclaration: false,
    handler: (params, ctx) => {
      const taskId = taskIdOf('tasks/result', params);
      const scheduler = service.core.options.scheduler;
      // A look now, then at every change of the task any node publishes, and every RESULT_POLL_MS should the bus lose one.
      const looks$ = merge(of(0), timer(RESULT_POLL_MS, RESULT_POLL_MS, scheduler), service.changesOf(taskId));
      return looks$.pipe(
        mergeMap(() => ownTask(service, taskId, ctx), 1),
        first((task) => isTerminal(task.status)),
        map(finalAnswer),
      );
    },
  };
}

function listTasks(service: TaskService): ExtensionMethod {
  return {
    eras: ['legacy'],
    requiresDeclaration: false,
    handler: (params, ctx) => {
      const cursor = params.cursor;
      if (cursor !== undefined && typeof cursor !== 'string') throw new ExtensionError(INVALID_PARAMS, 'tasks/list cursor must be a string');
      return service.store.list!(ctx.owner, cursor, service.core.options.pageSize).pipe(
        catchError((error: unknown) => {
          // A cursor the store cannot read is the caller's mistake, not the server's.
          throw error instanceof RangeError ? new ExtensionError(INVALID_PARAMS, 'tasks/list cursor is not one this server gave') : error;
        }),
        map((page) => (page.nextCursor === undefined ? { tasks: page.tasks.map(legacyTask) } : { tasks: page.tasks.map(legacyTask), nextCursor: page.nextCursor })),
      );
    },
  };
}

export function tasksExtension(service: TaskService): Extension {
  return {
    id: TASKS_EXTENSION_ID,
    settings: {},
    methods: {
      'tasks/get': getTask(service),
      'tasks/update': updateTask(service),
      'tasks/cancel': cancelTask(service),
      'tasks/result': taskResult(service),
      ...(service.store.list === undefined ? {} : { 'tasks/list': listTasks(service) }),
    },
  };
}
