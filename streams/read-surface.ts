/**
 * readSurface: the shape every read method shares. In one worker (so under
 * the in-flight bounds and the callback timeout): the read gate, then the
 * method's own work. A deny is JSON-RPC -32090; an ask is a deny too, since a
 * read surface cannot wait for a human; a busy, timed-out or crashed worker
 * is -32603 "MCP callback failed".
 */
import { map, of, switchMap, type Observable } from 'rxjs';
import type { CallContext } from '../lib/context.js';
import { callbackFailed, readDenied } from '../lib/errors.js';
import type { JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { authorize } from './authorize.js';
import { authorizationContext, callContext } from './call-context.js';
import type { RequestScope, ServerCore } from './server-core.js';
import { worker, type WorkerOutcome } from './worker.js';

export function workerOptions(core: ServerCore, scope: RequestScope) {
  return {
    admission: core.admission,
    connId: scope.connId,
    timeoutMs: core.options.callbackTimeoutMs,
    scheduler: core.options.scheduler,
  };
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
  work: (ctx: CallContext) => Observable<JsonRpcResponse>,
): Observable<JsonRpcResponse> {
  return worker(workerOptions(core, scope), (signal) =>
    authorize(core.options.readAuthorizer, scope.method, gateArgs, authorizationContext(scope)).pipe(
      switchMap((verdict) => {
        if (verdict.kind === 'allow') return work(callContext(core, scope, signal));
        const detail = verdict.kind === 'ask' ? 'interactive_approval_unsupported' : verdict.detail;
        return of(readDenied(scope.id, scope.method, detail));
      }),
    ),
  ).pipe(
    map((outcome) => {
      if (outcome.ok) return outcome.value;
      reportFailure(core, scope, outcome);
      return callbackFailed(scope.id, scope.method, outcome.reason);
    }),
  );
}
