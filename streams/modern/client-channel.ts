/**
 * The client channel of a modern request (2026-07-28): nothing about the
 * client is remembered, so everything comes from this request's envelope.
 *
 * - ctx.log: sent only when the request named a log level
 *   (`io.modelcontextprotocol/logLevel`), and only at or above it; without
 *   one the server must send no notifications/message for the request.
 * - ctx.elicit / ctx.sample / ctx.listRoots: a modern server never sends a
 *   request to the client. Each rejects with an InputNeededError carrying
 *   the request it would have sent and the capability it needs; left
 *   uncaught, input-needed.ts answers the request with it.
 */
import type { ElicitParams, ElicitResult } from '../../lib/context.js';
import { checkRequestedSchema } from '../../lib/elicitation-schema.js';
import { InputNeededError, type InputNeed } from '../../lib/errors.js';
import { passesLevel, type LogLevel } from '../../lib/log-levels.js';
import { isPlainObject, notification } from '../../lib/protocol/jsonrpc.js';
import type { ClientChannel } from '../call-context.js';
import { pushForRequest } from '../push-for-request.js';
import type { RequestScope, ServerCore } from '../server-core.js';

class ModernChannel implements ClientChannel {
  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
  ) {}

  log(level: LogLevel, data: unknown, logger?: string): void {
    const threshold = this.scope.modern?.logLevel;
    if (threshold === undefined || !passesLevel(level, threshold)) return;
    pushForRequest(this.core, this.scope, notification('notifications/message', logger === undefined ? { level, data } : { level, logger, data }));
  }

  async elicit(params: ElicitParams): Promise<ElicitResult> {
    const elicitation = this.declared('elicitation');
    if (params.mode === 'url') {
      return this.need('elicitation/create', { ...params }, { elicitation: { url: {} } }, isPlainObject(elicitation?.url));
    }
    const problem = checkRequestedSchema(params.requestedSchema);
    if (problem !== null) throw new TypeError(`ctx.elicit: ${problem}`);
    // `elicitation: {}` means form mode (the spec's own example).
    const form = elicitation !== undefined && (isPlainObject(elicitation.form) || !isPlainObject(elicitation.url));
    return this.need('elicitation/create', { ...params }, { elicitation: {} }, form);
  }

  async sample(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.need('sampling/createMessage', params, { sampling: {} }, this.declared('sampling') !== undefined);
  }

  async listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    return this.need('roots/list', {}, { roots: {} }, this.declared('roots') !== undefined);
  }

  private declared(name: string): Record<string, unknown> | undefined {
    const value = this.scope.modern?.clientCapabilities[name];
    return isPlainObject(value) ? value : undefined;
  }

  private need(method: InputNeed['method'], params: Record<string, unknown>, requiredCapabilities: Record<string, unknown>, declared: boolean): never {
    const what = Object.keys(requiredCapabilities)[0]!;
    const message = declared
      ? `${method} needs an input_required result (not yet supported on modern requests)`
      : `the request did not declare the ${what} capability, so the client cannot be sent ${method}`;
    throw new InputNeededError(message, { method, params, requiredCapabilities, declared });
  }
}

export function modernChannel(core: ServerCore, scope: RequestScope): ClientChannel {
  return new ModernChannel(core, scope);
}
