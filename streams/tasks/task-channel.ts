/**
 * TaskChannel: how a handler talks to its client once its call is a task.
 * Nothing is sent to the client: a question (ctx.elicit, ctx.sample,
 * ctx.listRoots, a batch of ctx.askInputs) is stored on the task under keys
 * never used before in it (status `input_required`, shown by `tasks/get`),
 * and the handler's await resolves when `tasks/update` brings the answers
 * (task-run.ts hands them over). Progress and log notifications are not sent
 * for a task (the spec forbids them): the channel is muted.
 *
 * Before the call becomes a task (the `afterMs` policy), the request's own
 * channel serves it: an input call there is an ordinary input round (MRTR on
 * 2026-07-28), which completes before any task is created.
 */
import type { ElicitParams, ElicitResult, InputRequest as ContextInputRequest } from '../../lib/context.js';
import { ClientCapabilityError } from '../../lib/errors.js';
import type { LogLevel } from '../../lib/log-levels.js';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { checkInputRequests } from '../ask-inputs.js';
import type { ClientChannel } from '../client-channel.js';
import { inputNeedOf } from '../input-need.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';

/** Where a task's questions go: its run, which stores them and waits for their answers. */
export interface TaskQuestions {
  /** Stores `requests` (keys chosen by the caller, unused in this task) and resolves with every answer, keyed the same. */
  ask(requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>>;
  /** A key no question of this task has had. */
  freshKey(wanted?: string): string;
}

export class TaskChannel implements ClientChannel {
  /** The call is a task: progress and log notifications are not sent for it. */
  readonly muted = true;

  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly questions: TaskQuestions,
  ) {}

  log(_level: LogLevel, _data: unknown, _logger?: string): void {}

  async elicit(params: ElicitParams): Promise<ElicitResult> {
    const request = this.checked({ method: 'elicitation/create', params: params as unknown as Record<string, unknown> });
    const key = this.questions.freshKey();
    return (await this.questions.ask({ [key]: request }))[key] as ElicitResult;
  }

  async sample(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const key = this.questions.freshKey();
    const request = this.checked({ method: 'sampling/createMessage', params });
    return (await this.questions.ask({ [key]: request }))[key] as Record<string, unknown>;
  }

  async listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    const key = this.questions.freshKey();
    const request = this.checked({ method: 'roots/list', params: {} });
    return (await this.questions.ask({ [key]: request }))[key] as { roots: Array<{ uri: string; name?: string }> };
  }

  /** One question for the whole batch: every key outstanding at once, answered in any order and in parts. */
  async askInputs(requests: unknown): Promise<Record<string, unknown>> {
    const entries = checkInputRequests(requests);
    if (entries.length === 0) return {};
    const wire: Record<string, InputRequest> = {};
    const wireKeyOf = new Map<string, string>();
    for (const [key, request] of entries) {
      const wireKey = this.questions.freshKey(key);
      wireKeyOf.set(key, wireKey);
      wire[wireKey] = this.checked({ method: request.method, params: (request.params ?? {}) as Record<string, unknown> });
    }
    const answers = await this.questions.ask(wire);
    return Object.fromEntries(entries.map(([key]) => [key, answers[wireKeyOf.get(key)!]]));
  }

  /** The request as the client will see it (input-need.ts), if the client said it can answer it. */
  private checked(request: { method: InputRequest['method']; params: Record<string, unknown> }): InputRequest {
    const need = inputNeedOf(request as ContextInputRequest, (name) => this.capability(name), this.scope.era);
    if (!need.declared) throw new ClientCapabilityError(`the client did not declare ${JSON.stringify(need.requiredCapabilities)}, so the task cannot ask it`);
    return { method: need.method, params: need.params };
  }

  /** What the creating request (modern) or its connection (legacy) declared. */
  private capability(name: 'elicitation' | 'sampling' | 'roots'): Record<string, unknown> | undefined {
    const value = this.scope.era === 'modern' ? this.scope.modern?.clientCapabilities[name] : this.core.capabilities.get(this.scope.connId)?.[name];
    return isPlainObject(value) ? value : undefined;
  }
}
