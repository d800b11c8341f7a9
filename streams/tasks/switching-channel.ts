/**
 * SwitchingChannel: the channel of a call that may become a task (the
 * `afterMs` policy). Until it does, the request's own channel answers (an
 * input call is an ordinary input round); from the moment it does, the
 * task's (questions stored on the task, nothing sent, muted). Each is made
 * on first use: a call that answers at once pays for neither.
 */
import type { ElicitParams, ElicitResult } from '../../lib/context.js';
import type { LogLevel } from '../../lib/log-levels.js';
import { requestChannel } from '../call-context.js';
import type { ClientChannel } from '../client-channel.js';
import type { LazyAbort } from '../worker.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import { TaskChannel, type TaskQuestions } from './task-channel.js';

export class SwitchingChannel implements ClientChannel {
  private request: ClientChannel | undefined;
  private task: ClientChannel | undefined;
  private switched = false;

  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly abort: LazyAbort,
    private readonly questions: TaskQuestions,
  ) {}

  /** The call is a task from now on. */
  switchToTask(): void {
    this.switched = true;
  }

  get muted(): boolean {
    return this.switched;
  }

  private get current(): ClientChannel {
    if (this.switched) return (this.task ??= new TaskChannel(this.core, this.scope, this.questions));
    return (this.request ??= requestChannel(this.core, this.scope, this.abort));
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    this.current.log(level, data, logger);
  }

  elicit(params: ElicitParams): Promise<ElicitResult> {
    return this.current.elicit(params);
  }

  sample(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.current.sample(params);
  }

  listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    return this.current.listRoots();
  }

  askInputs(requests: unknown): Promise<Record<string, unknown>> {
    return this.current.askInputs(requests);
  }
}
