/**
 * readSurface: the shape every read method shares. In one worker (so under
 * the in-flight bounds and the callback timeout): the read gate, then the
 * method's own work. A deny is JSON-RPC -32090; an ask is a deny too, since a
 * read surface cannot wait for a human; a busy, timed-out or crashed worker
 * is -32603 "MCP callback failed".
 */
import type { Observable } from 'rxjs';
import { callbackFailed, readDenied } from '../lib/errors.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { authorize } from './authorize.js';
import { authorizationContext } from './call-context.js';
import type { LazyAbort } from './lazy-abort.js';
import type { RequestScope, ServerCore } from './server-core.js';
import { thenEventual, type Eventual } from './eventual.js';
import { worker, type WorkerOptions, type WorkerOutcome } from './worker.js';

export function workerOptions(core: ServerCore, scope: RequestScope): WorkerOptions {
  return { admission: core.admission, connId: scope.connId, deadlines: core.deadlines };
}

/** Logs and reports a failed worker; the reply itself is the caller's to shape. */
export function reportFailure(core: ServerCore, scope: RequestScope, outcome: WorkerOutcome<unknown>): void {
  if (outcome.ok) return;
  const log = { connId: scope.connId, method: scope.method, reason: outcome.reason, err: outcome.error };
  if (outcome.reason === 'callback_crashed') core.options.logger.error(log, 'MCP callback crashed');
  else core.options.logger.warn(log, 'MCP callback failed');
  core.events.next({ type: 'callback_failed', connId: scope.connId, method: scope.method, reason: outcome.reason });
}

export function readSurface(
  core: ServerCore,
  scope: RequestScope,
  gateArgs: Record<string, unknown>,
  work: (abort: LazyAbort) => Eventual<JsonRpcResponse>,
): Observable<JsonRpcResponse> {
  return worker(
    workerOptions(core, scope),
    (abort) =>
      thenEventual(authorize(core.options.readAuthorizer, scope.method, gateArgs, authorizationContext(scope)), (verdict) => {
        if (verdict.kind === 'allow') return work(abort);
        const detail = verdict.kind === 'ask' ? 'interactive_approval_unsupported' : verdict.detail;
        return readDenied(scope.id, scope.method, detail);
      }),
    (outcome) => {
      if (outcome.ok) return outcome.value;
      reportFailure(core, scope, outcome);
      return callbackFailed(scope.id, scope.method, outcome.reason);
    },
  );
}
