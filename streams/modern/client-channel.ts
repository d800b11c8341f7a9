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
 * - ctx.askInputs: the same for a named batch, in one round (all its kinds
 *   must be declared, or the whole batch is the -32021 naming each).
 */
import type { ElicitParams, ElicitResult, InputRequest } from '../../lib/context.js';
import { InputNeededError, type InputNeed } from '../../lib/errors.js';
import { passesLevel, type LogLevel } from '../../lib/log-levels.js';
import { isPlainObject, notification } from '../../lib/protocol/jsonrpc.js';
import type { ClientChannel } from '../client-channel.js';
import { pushForRequest } from '../push-for-request.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import { checkInputRequests } from '../ask-inputs.js';
import { inputNeedOf } from '../input-need.js';
import { canReplay, replayAnswer, replayAnswers, whyNoReplay } from './replay.js';

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
    return this.ask<ElicitResult>(this.needOf({ method: 'elicitation/create', params }));
  }

  async sample(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.ask(this.needOf({ method: 'sampling/createMessage', params }));
  }

  async listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    return this.ask(this.needOf({ method: 'roots/list' }));
  }

  /** One round for the whole batch; any kind the request did not declare fails it all (-32021 naming each). */
  async askInputs(requests: unknown): Promise<Record<string, unknown>> {
    const entries = checkInputRequests(requests);
    if (entries.length === 0) return {};
    const needs: Record<string, InputNeed> = {};
    for (const [key, request] of entries) needs[key] = this.needOf(request);
    const undeclared = Object.values(needs).filter((need) => !need.declared);
    if (undeclared.length > 0) {
      const requiredCapabilities = Object.assign({}, ...undeclared.map((need) => need.requiredCapabilities)) as Record<string, unknown>;
      const named = Object.keys(requiredCapabilities).join(', ');
      throw new InputNeededError(`the request did not declare the ${named} capabilit${undeclared.length > 1 ? 'ies' : 'y'}, so the client cannot be asked`, {
        ...undeclared[0]!,
        requiredCapabilities,
      });
    }
    const first = Object.values(needs)[0]!;
    if (!canReplay(this.scope)) throw new InputNeededError(`${first.method} ${whyNoReplay(this.scope)}`, first);
    return replayAnswers(this.core, this.scope, needs);
  }

  private declared(name: string): Record<string, unknown> | undefined {
    const value = this.scope.modern?.clientCapabilities[name];
    return isPlainObject(value) ? value : undefined;
  }

  /** The request as the client would be sent it, the capability it needs, and whether this request declared it. */
  private needOf(request: InputRequest): InputNeed {
    return inputNeedOf(request, (name) => this.declared(name), 'modern');
  }

  private ask<T>(need: InputNeed): T {
    if (need.declared && canReplay(this.scope)) return replayAnswer(this.core, this.scope, need) as T;
    const what = Object.keys(need.requiredCapabilities)[0]!;
    const message = need.declared
      ? `${need.method} ${whyNoReplay(this.scope)}`
      : `the request did not declare the ${what} capability, so the client cannot be sent ${need.method}`;
    throw new InputNeededError(message, need);
  }
}

export function modernChannel(core: ServerCore, scope: RequestScope): ClientChannel {
  return new ModernChannel(core, scope);
}
