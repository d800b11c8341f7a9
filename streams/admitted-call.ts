/**
 * The call a middleware stage sees, built from its request's scope. Made
 * only when the server has middleware; its context is the handler's own
 * when the caller already has one, else made the first time a stage asks.
 */
import type { Principal } from '../lib/auth/principal.js';
import type { CallContext, ConnId, TransportKind } from '../lib/context.js';
import { refusalReply } from '../lib/errors.js';
import type { AdmittedCall, AdmittedMethod, CallReply } from '../lib/middleware/types.js';
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';
import type { ToolDef } from '../lib/tool-def.js';
import { callContext } from './call-context.js';
import type { LazyAbort } from './worker.js';
import type { RequestScope, ServerCore } from './state/server-core.js';

/** What a method knows about its call beyond the scope. */
export interface CallSubject {
  readonly name?: string;
  readonly uri?: string;
  readonly arguments?: Readonly<Record<string, unknown>>;
  readonly tool?: ToolDef;
}

export class StagedCall implements AdmittedCall {
  readonly method: AdmittedMethod;
  readonly requestId: JsonRpcId;
  readonly connId: ConnId;
  readonly transport: TransportKind;
  readonly peer: string;
  readonly principal: Principal | undefined;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  readonly name: string | undefined;
  readonly uri: string | undefined;
  readonly arguments: Readonly<Record<string, unknown>> | undefined;
  readonly tool: ToolDef | undefined;

  readonly #core: ServerCore;
  readonly #scope: RequestScope;
  readonly #abort: LazyAbort;
  #context: CallContext | undefined;

  constructor(core: ServerCore, scope: RequestScope, abort: LazyAbort, subject: CallSubject, context?: CallContext) {
    this.#core = core;
    this.#scope = scope;
    this.#abort = abort;
    this.#context = context;
    this.method = scope.method as AdmittedMethod;
    this.requestId = scope.id;
    this.connId = scope.connId;
    this.transport = scope.transport;
    this.peer = scope.peer;
    this.principal = scope.principal;
    this.params = scope.params;
    this.name = subject.name;
    this.uri = subject.uri;
    this.arguments = subject.arguments;
    this.tool = subject.tool;
  }

  get context(): CallContext {
    this.#context ??= callContext(this.#core, this.#scope, this.#abort);
    return this.#context;
  }

  refuse(reason: string, detail?: string): CallReply {
    return refusalReply(this.method, reason, detail);
  }
}
