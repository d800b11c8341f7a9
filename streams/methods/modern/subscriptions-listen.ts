/**
 * subscriptions/listen (MCP 2026-07-28). Registered in the modern method
 * table only (streams/methods/tables.ts): on the legacy wire it stays -32601
 * "Unknown method", so a legacy client sees no change. In this order:
 * 1. (the era decision has already checked the envelope);
 * 2. the id names the subscription, so it may not be null (-32600);
 * 3. `notifications` checked (-32602, see listen-filter.ts) and narrowed to
 *    what this server honours: the capabilities server/discover declares;
 * 4. the read gate (method `subscriptions/listen`, args `{ notifications }`
 *    with the honoured filter), in a worker that is released before the
 *    stream starts; with no read authorizer no worker is taken at all;
 * 5. the stream (listen.ts). In push mode (handleMessage) the caller gets
 *    `null` now and the stream's eventual reply is pushed, encoded for the
 *    modern wire like any reply.
 */
import { map, of, type Observable } from 'rxjs';
import { DENY_DETAIL } from '../../../lib/deny-details.js';
import { callbackFailed, extensionNotDeclared, invalidParams, invalidRequest, readDenied } from '../../../lib/errors.js';
import { TASKS_EXTENSION_ID } from '../../../lib/tasks/task-record.js';
import { clientDeclares } from '../../extensions/client-declares.js';
import type { JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { authorize } from '../../authorize.js';
import { asObservable, type ReplyStream } from '../../reply-stream.js';
import { honouredFilter, parseListenFilter, type ListenFilter } from '../../listen-filter.js';
import { listenStream } from '../../listen.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';
import { worker } from '../../worker.js';
import { reportAuthorizerFault, reportFailure, workerOptions } from '../../worker-scope.js';
import { MODERN_SERVER_CAPABILITIES } from './discover.js';
import { encodeModernReply } from '../../modern/encode.js';
import { pushEventually } from '../legacy/ask-user.js';

function isServed(core: ServerCore): (uri: string) => boolean {
  const registry = core.options.registry;
  return (uri) => registry.resource(uri) !== undefined || registry.matchTemplate(uri) !== undefined;
}

/** The read gate, then the stream; the gate's worker ends before the stream begins. */
function gatedStream(core: ServerCore, scope: RequestScope, filter: ListenFilter): ReplyStream<JsonRpcResponse> {
  const readAuthorizer = core.options.readAuthorizer;
  if (readAuthorizer === null) return listenStream(core, scope, filter);
  return worker(
    workerOptions(core, scope),
    () => authorize(readAuthorizer, scope.method, { notifications: filter }, scope),
    (outcome): JsonRpcResponse | Observable<JsonRpcResponse> => {
      if (!outcome.ok) {
        reportFailure(core, scope, outcome);
        return callbackFailed(scope.id, scope.method, outcome.reason, outcome.scope);
      }
      const verdict = outcome.value;
      if (verdict.kind === 'allow') return listenStream(core, scope, filter);
      reportAuthorizerFault(core, scope, verdict);
      return readDenied(scope.id, scope.method, verdict.kind === 'ask' ? DENY_DETAIL.interactiveApprovalUnsupported : verdict.detail);
    },
  );
}

/** Filters are narrowed to what server/discover declares (MODERN_SERVER_CAPABILITIES). */
export const listen: MethodHandler = (core, scope) => {
  if (scope.id === null) return of(invalidRequest(null, 'Invalid Request: subscriptions/listen needs a string or number id (it names the subscription)'));
  const parsed = parseListenFilter(scope.params, {
    maxUris: core.options.maxSubscriptionsPerConnection,
    maxUriLength: core.options.maxSubscriptionUriLength,
  });
  if (!parsed.ok) return of(invalidParams(scope.id, parsed.message, parsed.data));
  // Task notifications are the tasks extension's: a request that did not declare it is refused (-32021).
  const tasks = core.tasks !== null && clientDeclares(core, scope, TASKS_EXTENSION_ID);
  if (parsed.filter.taskIds !== undefined && core.tasks !== null && !tasks) {
    return of(extensionNotDeclared(scope.id, TASKS_EXTENSION_ID, 'subscriptions/listen taskIds'));
  }
  const stream$ = gatedStream(core, scope, honouredFilter(parsed.filter, MODERN_SERVER_CAPABILITIES, isServed(core), tasks));
  if (scope.mode === 'reply') return stream$;
  // A pushed reply bypasses route's encode step (reply-stream.ts), so it is encoded here (encoding twice changes nothing).
  return pushEventually(core, scope, asObservable(stream$).pipe(map((reply) => encodeModernReply(core, scope, reply) ?? reply)));
};
