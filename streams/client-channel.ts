import type { ElicitParams, ElicitResult } from '../lib/context.js';
import type { LogLevel } from '../lib/log-levels.js';

/**
 * How a callback talks back to its client: log lines, and requests to the
 * client (elicitation, sampling, roots). Legacy and modern requests differ
 * here and only here (modern/client-channel.ts), so the context is one class.
 */
export interface ClientChannel {
  /** True once the call is a task (tasks/task-channel.ts): no progress or log notification is sent for it. */
  readonly muted?: boolean;
  log(level: LogLevel, data: unknown, logger?: string): void;
  elicit(params: ElicitParams): Promise<ElicitResult>;
  sample(params: Record<string, unknown>): Promise<Record<string, unknown>>;
  listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }>;
  /** A named batch of the three (ask-inputs.ts checks it). */
  askInputs(requests: unknown): Promise<Record<string, unknown>>;
}
