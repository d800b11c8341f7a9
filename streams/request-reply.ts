/**
 * RequestReply: a routed request's ReplySource (first-reply.ts). One
 * object per request holds what its reply needs: the request (its cancel
 * scope is the connection and the request id), a failure of the pipeline
 * answered as an internal error (pipeline-failure.ts), and its era's
 * encoding of the reply, if any.
 */
import type { ConnId } from '../lib/context.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import type { CancelScope, Cancellations } from './state/cancellation.js';
import type { ReplyStream } from './direct-source.js';
import { ReplySource } from './first-reply.js';
import { pipelineFailure } from './pipeline-failure.js';
import type { RequestScope, ServerCore } from './state/server-core.js';

type Reply = JsonRpcResponse | null;
export type ReplyEncoder = (core: ServerCore, scope: RequestScope, reply: Reply) => Reply;

export class RequestReply extends ReplySource<Reply> implements CancelScope {
  readonly recovers = true;
  readonly shapes: boolean;
  readonly cancels: CancelScope | undefined;

  constructor(
    readonly replies: ReplyStream<Reply>,
    private readonly core: ServerCore,
    private readonly scope: RequestScope,
    private readonly encode: ReplyEncoder | null,
    cancellable: boolean,
  ) {
    super();
    this.shapes = encode !== null;
    this.cancels = cancellable ? this : undefined;
  }

  get table(): Cancellations {
    return this.core.cancellations;
  }

  get connId(): ConnId {
    return this.scope.connId;
  }

  get requestId(): unknown {
    return this.scope.id;
  }

  recover(error: unknown): Reply {
    return pipelineFailure(this.core, this.scope.connId, this.scope.id, error);
  }

  shape(reply: Reply): Reply {
    return this.encode!(this.core, this.scope, reply);
  }
}
