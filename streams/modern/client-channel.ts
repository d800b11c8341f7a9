/**
 * The client channel of a modern request (2026-07-28): nothing about the
 * client is remembered, so everything comes from this request's envelope.
 *
 * - ctx.log: sent only when the request named a log level
 *   (`io.modelcontextprotocol/logLevel`), and only at or above it; without
 *   one the server must send no notifications/message for the request.
 * - ctx.elicit / ctx.sample / ctx.listRoots: a modern server never sends a
 *   request to the client. On tools/call, resources/read and prompts/get,
 *   for a capability the request declared, the call is answered by replay
 *   (replay.ts: input_required rounds). Otherwise each rejects with an
 *   InputNeededError carrying the request it would have sent and the
 *   capability it needs; left uncaught, input-needed.ts answers -32021.
 */
import type { ElicitParams, ElicitResult } from '../../lib/context.js';
import { checkRequestedSchema } from '../../lib/elicitation-schema.js';
import { InputNeededError, type InputNeed } from '../../lib/errors.js';
import { passesLevel, type LogLevel } from '../../lib/log-levels.js';
import { isPlainObject, notification } from '../../lib/protocol/jsonrpc.js';
import type { ClientChannel } from '../call-context.js';
import { pushForRequest } from '../push-for-request.js';
import type { RequestScope, ServerCore } from '../server-core.js';
import { canReplay, replayAnswer, whyNoReplay } from './replay.js';

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
      // 2026-07-28 has no elicitationId: the retry itself says the URL step is done.
      const { elicitationId: _id, ...urlParams } = params;
      return this.need('elicitation/create', { ...urlParams }, { elicitation: { url: {} } }, isPlainObject(elicitation?.url));
    }
    const problem = checkRequestedSchema(params.requestedSchema);
    if (problem !== null) throw new TypeError(`ctx.elicit: ${problem}`);
    // `elicitation: {}` means form mode (the spec's own example).
    const form = elicitation !== undefined && (isPlainObject(elicitation.form) || !isPlainObject(elicitation.url));
    return this.need('elicitation/create', { mode: 'form', ...params }, { elicitation: {} }, form);
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

  private need<T>(method: InputNeed['method'], params: Record<string, unknown>, requiredCapabilities: Record<string, unknown>, declared: boolean): T {
    const need: InputNeed = { method, params, requiredCapabilities, declared };
    if (declared && canReplay(this.scope)) return replayAnswer(this.core, this.scope, need) as T;
    const what = Object.keys(requiredCapabilities)[0]!;
    const message = declared
      ? `${method} ${whyNoReplay(this.scope)}`
      : `the request did not declare the ${what} capability, so the client cannot be sent ${method}`;
    throw new InputNeededError(message, need);
  }
}

export function modernChannel(core: ServerCore, scope: RequestScope): ClientChannel {
  return new ModernChannel(core, scope);
}
