/**
 * sendQuestionsToClient: a 2025-11-25 task's questions. That revision has no
 * tasks/update: each question is sent to the client as the request it
 * stands for, on the connection that created the task, with the related-task
 * `_meta`; its answer is taken into the store as a tasks/update would be, so
 * the store stays the one place answers are taken (each key once).
 */
import type { ElicitParams } from '../../lib/context.js';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import type { TaskStore } from '../../lib/ports/task-store.js';
import type { ClientChannel } from '../client-channel.js';
import { RELATED_TASK_META } from './task-wire.js';

export function sendQuestionsToClient(
  channel: ClientChannel,
  store: TaskStore,
  taskId: string,
  requests: Readonly<Record<string, InputRequest>>,
  /** A question the client could not be asked or did not answer: the handler's wait for it fails with why. */
  unanswered: (key: string, error: unknown) => void,
): void {
  const related = { [RELATED_TASK_META]: { taskId } };
  for (const [key, request] of Object.entries(requests)) {
    const params = { ...request.params, _meta: { ...(request.params?._meta as object | undefined), ...related } };
    const answer =
      request.method === 'elicitation/create'
        ? channel.elicit(params as unknown as ElicitParams)
        : request.method === 'sampling/createMessage'
          ? channel.sample(params)
          : channel.listRoots();
    answer.then(
      (value) => store.answer(taskId, { [key]: value }).subscribe({ error: (error: unknown) => unanswered(key, error) }),
      (error: unknown) => unanswered(key, error),
    );
  }
}
