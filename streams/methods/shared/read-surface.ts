/**
 * readSurface: the shape every read method shares. In one worker (so under
 * the in-flight bounds and the callback timeout): the read gate, then the
 * method's own work. A deny is JSON-RPC -32090; an ask is a deny too, since a
 * read surface cannot wait for a human; a busy, timed-out or crashed worker
 * is -32603 "MCP callback failed"; a callback that only needed the
 * client's input on a modern request is answered by modern/input-needed.ts.
 * resources/read, prompts/get and completion/complete pass their work
 * through the server's middleware.
 */
import { DENY_DETAIL } from '../../../lib/deny-details.js';
import { callbackFailed, invalidRequestState, readDenied } from '../../../lib/errors.js';
import type { JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { authorize } from '../../authorize.js';
import { inputNeededReply } from '../../modern/input-needed.js';
import { replayReady, replayReply } from '../../modern/replay.js';
import { type LazyAbort, thenEventual, type Eventual, worker } from '../../worker.js';
import type { RequestScope, ServerCore } from '../../state/server-core.js';
import type { ReplyStream } from '../../reply-stream.js';
import { reportAuthorizerFault, reportFailure, workerOptions } from '../../worker-scope.js';
import { StagedCall, type CallSubject } from '../../admitted-call.js';
import type { CallReply } from '../../../lib/middleware/types.js';
import { responseOf, throughMiddleware } from '../../through-middleware.js';

export function readSurface(
  core: ServerCore,
  scope: RequestScope,
  gateArgs: Record<string, unknown>,
  work: (abort: LazyAbort) => Eventual<JsonRpcResponse>,
): ReplyStream<JsonRpcResponse> {
  return worker(
    workerOptions(core, scope),
    (abort) =>
      thenEventual(authorize(core.options.readAuthorizer, scope.method, gateArgs, scope), (verdict) => {
        if (verdict.kind === 'allow') return replayReady(core, scope) ? work(abort) : invalidRequestState(scope.id);
        reportAuthorizerFault(core, scope, verdict);
        const detail = verdict.kind === 'ask' ? DENY_DETAIL.interactiveApprovalUnsupported : verdict.detail;
        return readDenied(scope.id, scope.method, detail);
      }),
    (outcome) => {
      // A handler's unanswered input call ends the round, whatever it did after (modern/replay.ts).
      const round = replayReply(scope);
      if (round !== undefined) return round;
      if (outcome.ok) return outcome.value;
      const needed = inputNeededReply(core, scope, outcome.error);
      if (needed !== undefined) return needed;
      reportFailure(core, scope, outcome);
      return callbackFailed(scope.id, scope.method, outcome.reason, outcome.scope);
    },
  );
}

/**
 * A read method's own work through the server's middleware (the caller has
 * checked that there is some): the stages see its response as a reply, and
 * what they answer becomes the response to this request.
 */
export function readThroughMiddleware(
  core: ServerCore,
  scope: RequestScope,
  abort: LazyAbort,
  subject: CallSubject,
  work: () => Eventual<JsonRpcResponse>,
): Eventual<JsonRpcResponse> {
  const call = new StagedCall(core, scope, abort, subject);
  const reply = throughMiddleware(core.options.middleware ?? [], call, work as () => Eventual<CallReply>);
  return thenEventual(reply, (staged) => responseOf(scope.id, staged));
}
