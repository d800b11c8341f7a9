/**
 * encode: each routed request's reply stream becomes its reply, exactly
 * once: the first value, in its era's wire shape (with what the server's
 * extensions add to the method's results), then complete; nothing at all if
 * the client cancels the request first (notifications/cancelled finds it in
 * the cancellation table); a failure inside the stream before its first value
 * answered as an internal error for the request (pipeline-failure.ts). A
 * `call_completed` event and a span go around it when someone listens
 * (call-telemetry.ts). A reply that is here already passes as it is.
 *
 * Nothing starts here: what comes out is a ReplyStream that replyEach
 * opens (and opening it opens the method's stream: a worker admits and runs
 * its callback then). One object per request (RequestReply) holds all of
 * it, instead of a recover and a shape closure, a cancel scope and a
 * wrapper: a thousand calls may wait at once.
 *
 * ```
 * routed:   --a--R--|         a a reply now; R a request, its method's stream r
 * r:             ---x--y|     (y ignored: the first value only)
 * result:   --a--E--|         E = encode(R) and, opened: ---X|  X the era's shape of x
 * cancel:        ^ -c         (a cancel before x: E completes with nothing, r unsubscribed)
 * ```
 */
import type { OperatorFunction } from 'rxjs';
import type { ConnId } from '../../lib/context.js';
import type { JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { withCallTelemetry } from '../call-telemetry.js';
import { withResultMembers } from '../extensions/result-members.js';
import { ERAS } from '../methods/tables.js';
import { pipelineFailure, reportPipelineFailure } from '../pipeline-failure.js';
import { ReplySource, type ReplyStream } from '../reply-stream.js';
import type { CancelScope, Cancellations } from '../state/cancellation.js';
import type { ReplyEncoder, RequestScope, ServerCore } from '../state/server-core.js';
import { perMessage } from './incoming.js';
import { RoutedRequest, type Routed } from './route.js';

type Reply = JsonRpcResponse | null;

/** What encode hands on: a reply now, or a request's reply stream (one reply, null where the contract answers nothing, or nothing if cancelled). */
export type Encoded = JsonRpcResponse | ReplyStream<Reply>;

/**
 * A routed request's ReplySource (reply-stream.ts): its cancel scope is the
 * connection and the request id, a failure is answered as an internal error,
 * and its era's encoding shapes the reply, if the era has one.
 */
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

function encodeRouted(core: ServerCore, routed: Routed): Encoded {
  if (!(routed instanceof RoutedRequest)) return routed;
  const { scope } = routed;
  try {
    const era = ERAS[scope.era];
    const members = core.extensions.resultMembers?.get(scope.method);
    const encoder = members === undefined ? era.encode : withResultMembers(members, era.encode);
    const reply$ = new RequestReply(routed.replies, core, scope, encoder, !era.uncancellable.has(scope.method));
    return withCallTelemetry(core, scope, routed.message, reply$);
  } catch (error) {
    // A server bug kept to its request, as route keeps one: answered, logged.
    return pipelineFailure(core, scope.connId, scope.id, error);
  }
}

export function encode(core: ServerCore): OperatorFunction<Routed, Encoded> {
  return perMessage(
    (routed: Routed) => encodeRouted(core, routed),
    (error) => reportPipelineFailure(core, '', error),
  );
}
