/**
 * SwitchingChannel: the channel of a call that may become a task (the
 * `afterMs` policy). Until it does, the request's own channel answers (an
 * input call is an ordinary input round); from the moment it does, the
 * task's (questions stored on the task, nothing sent, muted).
 */
import type { ElicitParams, ElicitResult } from '../../lib/context.js';
import type { LogLevel } from '../../lib/log-levels.js';
import type { ClientChannel } from '../client-channel.js';

export class SwitchingChannel implements ClientChannel {
  private current: ClientChannel;

  constructor(
    request: ClientChannel,
    private readonly task: ClientChannel,
  ) {
    this.current = request;
  }

  /** The call is a task from now on. */
  switchToTask(): void {
    this.current = this.task;
  }

  get muted(): boolean {
    return this.current.muted === true;
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
