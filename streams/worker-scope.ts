/**
 * What every stage that starts a worker for a request needs: the worker's
 * bounds for that request's connection, and the one way a failed worker is
 * logged and reported on events$ (the reply is the caller's to shape).
 *
 * A crash is logged at `error` with its stack; a timeout at `warn`; a busy
 * refusal at `debug` only (it is the client's to see, and under load one
 * line per refused call would be a flood). The event carries the same
 * fields without the stack.
 */
import type { Verdict } from '../lib/authorizers.js';
import type { CallbackFailedEvent } from '../lib/events.js';
import { crashedToolText } from '../lib/crash-exposure.js';
import { callbackFailedToolResult, type ErrorToolResult } from '../lib/errors.js';
import { callTarget, targetField } from './call-target.js';
import { principalField } from '../lib/events.js';
import type { RequestScope, ServerCore } from './state/server-core.js';
import type { WorkerOptions, WorkerOutcome } from './worker.js';

export function workerOptions(core: ServerCore, scope: RequestScope): WorkerOptions {
  return { admission: core.admission, connId: scope.connId, peer: scope.peer, deadlines: core.deadlines };
}

/** What a failure's log line carries: where it happened, which request, why, and the error (with its stack). */
function logFields(scope: RequestScope, name: string | undefined, reason: string, err: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = { method: scope.method, connId: scope.connId, requestId: scope.id, reason };
  if (name !== undefined) fields[targetField(scope.method)] = name;
  if (err !== undefined) fields.err = err;
  return fields;
}

function errorSummary(error: unknown): CallbackFailedEvent['error'] {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: typeof error, message: String(error) };
}

/** A tools/call whose worker failed, as its isError result: a crash's text as the exposeErrors option says. */
export function failedToolResult(core: ServerCore, outcome: WorkerOutcome<unknown> & { ok: false }): ErrorToolResult {
  const text = outcome.reason === 'callback_crashed' ? crashedToolText(core.options.exposeErrors, outcome.error) : undefined;
  return callbackFailedToolResult(outcome.reason, outcome.scope, text);
}

/** What the crash log line adds when the client was not sent the message: where a newcomer looks next. */
const UNSENT_CRASH = ` (the client was sent "Error: callback_crashed" only: throw a ToolError to send it a message, or set exposeErrors)`;

/**
 * A handler's Observable answers with its LAST value, when it COMPLETES. One
 * that emits and never completes (a BehaviorSubject, `interval`, a Subject
 * kept open) waits for `callbackTimeoutMs` (five minutes by default), and the
 * timeout alone does not say why: the worker counted what it emitted
 * (worker.ts, Reading.seen), and this says so, and how to end it.
 */
function warnUnfinished(logger: ServerCore['options']['logger'], tool: string, values: number): void {
  logger.warn(
    { tool, values, reason: 'callback_timeout' },
    `tool ${tool} timed out because its Observable emitted ${values} value${values === 1 ? '' : 's'} but never completed: ` +
      'a tool answers with the last value once its Observable completes; end it (take(1), first(), takeUntil(...)) or return a Promise',
  );
}

export function reportFailure(core: ServerCore, scope: RequestScope, outcome: WorkerOutcome<unknown>): void {
  if (outcome.ok) return;
  const name = callTarget(scope.method, scope.params);
  const where = name === undefined ? scope.method : `${scope.method} ${name}`;
  const log = logFields(scope, name, outcome.reason, outcome.error);
  const logger = core.options.logger;
  if (outcome.reason === 'callback_crashed') {
    const unsent = scope.method === 'tools/call' && core.options.exposeErrors !== 'message' ? UNSENT_CRASH : '';
    logger.error(log, `MCP callback crashed: ${where}${unsent}`);
  }
  else if (outcome.reason === 'callback_timeout') {
    logger.warn(log, `MCP callback timed out: ${where}`);
    if (outcome.unfinished !== undefined && scope.method === 'tools/call') warnUnfinished(logger, name ?? '', outcome.unfinished);
  }
  else {
    if (outcome.scope !== undefined) log.scope = outcome.scope;
    logger.debug(log, `MCP callback refused, server busy: ${where}`);
  }
  if (!core.events.observed) return;
  core.events.next({
    type: 'callback_failed',
    connId: scope.connId,
    method: scope.method,
    name,
    requestId: scope.id,
    reason: outcome.reason,
    ...(outcome.reason === 'callback_crashed' ? { error: errorSummary(outcome.error) } : {}),
    ...principalField(scope.principal),
  });
}

/** A deny the authorizer did not mean (it threw, or answered off-contract) is the server owner's bug: logged. */
export function reportAuthorizerFault(
  core: ServerCore,
  scope: RequestScope,
  verdict: Verdict,
  name: string | undefined = callTarget(scope.method, scope.params),
): void {
  if (verdict.kind !== 'deny') return;
  if (verdict.detail !== 'authorizer_failed' && verdict.detail !== 'authorizer_contract_violation') return;
  const log = logFields(scope, name, verdict.detail, verdict.failure);
  const where = name === undefined ? scope.method : `${scope.method} ${name}`;
  if (verdict.detail === 'authorizer_failed') core.options.logger.error(log, `authorizer threw, call denied: ${where}`);
  else core.options.logger.warn(log, `authorizer answered neither 'allow', { ask } nor { deny }, call denied: ${where}`);
}
