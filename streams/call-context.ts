/**
 * The context a callback receives, built from its request's scope: who is
 * calling (set by the server, never the client), the abort signal, and the
 * ways to talk back to the client while the call runs (progress, log lines,
 * elicitation, sampling, roots, and named batches of them), and the server's
 * clock, so a handler waits on the scheduler a test controls. Every message
 * it sends is tagged with the request it belongs to, so a transport can
 * deliver it on that request's stream.
 */
import type { SchedulerLike } from 'rxjs';
import type { Principal } from '../lib/auth/principal.js';
import type { CallContext, ConnId, ElicitParams, ElicitResult, InputRequest, InputResponses, TransportKind } from '../lib/context.js';
import { checkRequestedSchema } from '../lib/elicitation-schema.js';
import { ClientCapabilityError } from '../lib/errors.js';
import type { LogLevel } from '../lib/log-levels.js';
import { sleep } from '../lib/sleep.js';
import { untilAborted } from '../lib/until-aborted.js';
import { isPlainObject, notification, type JsonRpcId } from '../lib/protocol/jsonrpc.js';
import type { Era, ModernRequest } from '../lib/protocol/modern.js';
import type { CompletionContext } from '../lib/resource-def.js';
import type { ExtensionCallContext } from '../lib/extension.js';
import { clientDeclares } from './extensions/client-declares.js';
import { askConcurrently } from './ask-inputs.js';
import { supportsFormElicitation, type ClientCapabilities } from './state/capability-table.js';
import type { LazyAbort } from './worker.js';
import type { ClientChannel } from './client-channel.js';
import { modernChannel } from './modern/client-channel.js';
import { pushForRequest } from './push-for-request.js';
import type { RequestScope, ServerCore } from './state/server-core.js';


/** The legacy era: the connection's log level (outbox.ts) and what it advertised at initialize. */
class LegacyChannel implements ClientChannel {
  constructor(
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly abort: LazyAbort,
  ) {}

  log(level: LogLevel, data: unknown, logger?: string): void {
    pushForRequest(this.core, this.scope, notification('notifications/message', logger === undefined ? { level, data } : { level, logger, data }));
  }

  async elicit(params: ElicitParams, signal = this.abort.signal): Promise<ElicitResult> {
    const elicitation = this.capability('elicitation');
    if (params.mode === 'url') {
      this.requireCapability('elicitation.url', 'be sent to a URL', isPlainObject(elicitation?.url));
    } else {
      this.requireCapability('elicitation', 'be asked for input', supportsFormElicitation(elicitation));
      const problem = checkRequestedSchema(params.requestedSchema);
      if (problem !== null) throw new TypeError(`ctx.elicit: ${problem}`);
    }
    return this.ask<ElicitResult>('elicitation/create', { ...params }, this.core.options.elicitationTimeoutMs, signal);
  }

  async sample(params: Record<string, unknown>, signal = this.abort.signal): Promise<Record<string, unknown>> {
    this.requireCapability('sampling', 'be asked to sample', this.capability('sampling') !== undefined);
    return this.ask('sampling/createMessage', params, this.core.options.clientRequestTimeoutMs, signal);
  }

  async listRoots(signal = this.abort.signal): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    this.requireCapability('roots', 'list its roots', this.capability('roots') !== undefined);
    return this.ask('roots/list', {}, this.core.options.clientRequestTimeoutMs, signal);
  }

  askInputs(requests: unknown): Promise<Record<string, unknown>> {
    return askConcurrently(this, requests, this.abort.signal);
  }

  private capability(name: keyof ClientCapabilities): Record<string, unknown> | undefined {
    const value = this.core.capabilities.get(this.scope.connId)?.[name];
    return isPlainObject(value) ? value : undefined;
  }

  private requireCapability(name: string, what: string, present: boolean): void {
    if (!present || !this.core.connections.isLive(this.scope.connId)) {
      throw new ClientCapabilityError(`the client did not advertise ${name} (or cannot receive requests), so it cannot ${what}`);
    }
  }

  private ask<T>(method: string, params: Record<string, unknown>, timeoutMs: number, signal: AbortSignal): Promise<T> {
    const request$ = this.core.clientRequests.send({
      owner: this.scope.connId,
      method,
      params,
      timeoutMs,
      push: (message) => pushForRequest(this.core, this.scope, message),
    });
    return untilAborted(request$, signal) as Promise<T>;
  }
}

/** The channel for a request of either era. */
export function requestChannel(core: ServerCore, scope: RequestScope, abort: LazyAbort): ClientChannel {
  return scope.era === 'modern' ? modernChannel(core, scope) : new LegacyChannel(core, scope, abort);
}

/**
 * One per callback. A class rather than an object of closures: most calls
 * never use these methods, and a call should not pay for making them (the
 * client channel too is made on first use).
 */
class RequestCallContext implements CallContext {
  readonly connId: ConnId;
  readonly transport: TransportKind;
  // Declared, not initialized: an unauthenticated call's context has no principal property at all.
  declare readonly principal?: Principal;
  readonly requestId: JsonRpcId;
  readonly meta: Record<string, unknown> | undefined;
  readonly era: Era;
  readonly modern: ModernRequest | undefined;

  // Truly private: a handler sees the context's contract, not the server's state.
  readonly #core: ServerCore;
  readonly #scope: RequestScope;
  readonly #abort: LazyAbort;
  #channel: ClientChannel | undefined;

  constructor(core: ServerCore, scope: RequestScope, abort: LazyAbort, channel?: ClientChannel) {
    this.#core = core;
    this.#scope = scope;
    this.#abort = abort;
    this.#channel = channel;
    this.connId = scope.connId;
    this.transport = scope.transport;
    if (scope.principal !== undefined) (this as { principal?: Principal }).principal = scope.principal;
    this.requestId = scope.id;
    const meta = scope.params?._meta;
    this.meta = isPlainObject(meta) ? meta : undefined;
    this.era = scope.era;
    this.modern = scope.modern;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  clientDeclares(extensionId: string): boolean {
    return clientDeclares(this.#core, this.#scope, extensionId);
  }

  get scheduler(): SchedulerLike {
    return this.#core.options.scheduler;
  }

  sleep(ms: number): Promise<void> {
    return sleep(ms, { scheduler: this.#core.options.scheduler, signal: this.#abort.signal });
  }

  progress(progress: number, total?: number, message?: string): void {
    if (this.#channel?.muted === true) return;
    const progressToken = this.meta?.progressToken;
    if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    pushForRequest(this.#core, this.#scope, notification('notifications/progress', params));
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    this.#client().log(level, data, logger);
  }

  elicit(params: ElicitParams): Promise<ElicitResult> {
    return this.#client().elicit(params);
  }

  sample(params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.#client().sample(params);
  }

  listRoots(): Promise<{ roots: Array<{ uri: string; name?: string }> }> {
    return this.#client().listRoots();
  }

  askInputs<const T extends Readonly<Record<string, InputRequest>>>(requests: T): Promise<InputResponses<T>> {
    return this.#client().askInputs(requests) as Promise<InputResponses<T>>;
  }

  #client(): ClientChannel {
    this.#channel ??= requestChannel(this.#core, this.#scope, this.#abort);
    return this.#channel;
  }
}

/** A completer's context: the call's, plus the arguments the client already chose. */
class CompletionCallContext extends RequestCallContext implements CompletionContext {
  readonly arguments: Record<string, string>;

  constructor(core: ServerCore, scope: RequestScope, abort: LazyAbort, chosen: Record<string, string>) {
    super(core, scope, abort);
    this.arguments = chosen;
  }
}

/** An extension method's context: the call's, plus its extension and whether the client declared it. */
class ExtensionMethodContext extends RequestCallContext implements ExtensionCallContext {
  constructor(
    core: ServerCore,
    scope: RequestScope,
    abort: LazyAbort,
    readonly extensionId: string,
    readonly declared: boolean,
  ) {
    super(core, scope, abort);
    this.owner = scope.peer;
  }

  readonly owner: string;
}

export function extensionCallContext(core: ServerCore, scope: RequestScope, abort: LazyAbort, extensionId: string, declared: boolean): ExtensionCallContext {
  return new ExtensionMethodContext(core, scope, abort, extensionId, declared);
}

/** A callback's context; `channel` replaces the request's way of talking to its client (a task's, tasks/task-channel.ts). */
export function callContext(core: ServerCore, scope: RequestScope, abort: LazyAbort, channel?: ClientChannel): CallContext {
  return new RequestCallContext(core, scope, abort, channel);
}

export function completionContext(core: ServerCore, scope: RequestScope, abort: LazyAbort, chosen: Record<string, string>): CompletionContext {
  return new CompletionCallContext(core, scope, abort, chosen);
}
