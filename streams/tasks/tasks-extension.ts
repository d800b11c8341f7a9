/**
 * The tasks extension's methods on the 2026-07-28 wire, built on the
 * extension API like any user's: `tasks/get`, `tasks/update`, `tasks/cancel`
 * (`tasks/result` and `tasks/list` do not exist in this revision: -32601).
 * Each is a read (the read authorizer gates it, on its params), -32021 for a
 * request that did not declare the extension, and bound to the task's owner:
 * a task id is not a capability, so another owner's task is "not found",
 * exactly as an unknown one (-32602), and its existence never leaks.
 */
import { map, mergeMap, of, type Observable } from 'rxjs';
import { ExtensionError, INVALID_PARAMS } from '../../lib/errors.js';
import type { Extension, ExtensionCallContext } from '../../lib/extension.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { retainedSize } from '../../lib/retained-size.js';
import { TASKS_EXTENSION_ID, type TaskRecord } from '../../lib/tasks/task-record.js';
import { wellFormedAnswer } from '../modern/replay.js';
import { detailedTask } from './task-wire.js';
import type { TaskService } from './task-service.js';

/** Longest task id accepted: ours are about 30 characters. */
const MAX_TASK_ID_LENGTH = 256;
/** Most bytes one tasks/update's inputResponses may hold once parsed (retained-size.ts estimate). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

function taskIdOf(method: string, params: Readonly<Record<string, unknown>>): string {
  const taskId = params.taskId;
  if (typeof taskId !== 'string' || taskId.length === 0 || taskId.length > MAX_TASK_ID_LENGTH) {
    throw new ExtensionError(INVALID_PARAMS, `${method} needs params.taskId, a task id string`);
  }
  return taskId;
}

/** The caller's own task, else the same -32602 as for an unknown id. */
function ownTask(service: TaskService, taskId: string, ctx: ExtensionCallContext): Observable<TaskRecord> {
  return service.store.get(taskId).pipe(
    map((task) => {
      if (task === undefined || task.owner !== ctx.owner) throw new ExtensionError(INVALID_PARAMS, 'Failed to retrieve task: Task not found');
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

export function tasksExtension(service: TaskService): Extension {
  return {
    id: TASKS_EXTENSION_ID,
    settings: {},
    methods: {
      'tasks/get': {
        eras: ['modern'],
        handler: (params, ctx) => ownTask(service, taskIdOf('tasks/get', params), ctx).pipe(map(detailedTask)),
      },
      'tasks/update': {
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
              return Object.keys(usable).length === 0 ? of({}) : service.store.answer(taskId, usable).pipe(map(() => ({})));
            }),
          );
        },
      },
      'tasks/cancel': {
        eras: ['modern'],
        handler: (params, ctx) => {
          const taskId = taskIdOf('tasks/cancel', params);
          return ownTask(service, taskId, ctx).pipe(
            mergeMap(() => service.store.cancel(taskId)),
            map(() => ({})),
          );
        },
      },
    },
  };
}
