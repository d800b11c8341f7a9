/**
 * What every stage that starts a worker for a request needs: the worker's
 * bounds for that request's connection, and the one way a failed worker is
 * logged and reported on events$ (the reply is the caller's to shape).
 */
import { principalField } from '../lib/events.js';
import type { RequestScope, ServerCore } from './server-core.js';
import type { WorkerOptions, WorkerOutcome } from './worker.js';

export function workerOptions(core: ServerCore, scope: RequestScope): WorkerOptions {
  return { admission: core.admission, connId: scope.connId, peer: scope.peer, deadlines: core.deadlines };
}

export function reportFailure(core: ServerCore, scope: RequestScope, outcome: WorkerOutcome<unknown>): void {
  if (outcome.ok) return;
  const log = { connId: scope.connId, method: scope.method, reason: outcome.reason, err: outcome.error };
  if (outcome.reason === 'callback_crashed') core.options.logger.error(log, 'MCP callback crashed');
  else core.options.logger.warn(log, 'MCP callback failed');
  core.events.next({ type: 'callback_failed', connId: scope.connId, method: scope.method, reason: outcome.reason, ...principalField(scope.principal) });
}
