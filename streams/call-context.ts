/**
 * The context a callback receives, built from its request's scope: who is
 * calling (set by the server, never the client), the abort signal, and the
 * ways to talk back to the client while the call runs (progress, log lines,
 * elicitation, sampling, roots). Every message it sends is tagged with the
 * request it belongs to, so a transport can deliver it on that request's
 * stream.
 */
import { Observable } from 'rxjs';
import type { AuthorizationContext, CallContext, ElicitParams, ElicitResult } from '../lib/context.js';
import { checkRequestedSchema } from '../lib/elicitation-schema.js';
import { ClientCapabilityError } from '../lib/errors.js';
import type { LogLevel } from '../lib/log-levels.js';
import { isPlainObject, notification, type JsonRpcNotification, type JsonRpcRequest } from '../lib/protocol/jsonrpc.js';
import { withRelatedRequest } from '../lib/protocol/related.js';
import type { RequestScope, ServerCore } from './server-core.js';

export function authorizationContext(scope: RequestScope): AuthorizationContext {
  return { connId: scope.connId, transport: scope.transport };
}

/** Resolves with the Observable's first value; the signal aborting unsubscribes it. */
function untilAborted<T>(source: Observable<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      subscription.unsubscribe();
      reject(signal.reason);
    };
    const subscription = source.subscribe({
      next: (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      error: (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    });
    if (!subscription.closed) signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function callContext(core: ServerCore, scope: RequestScope, signal: AbortSignal): CallContext {
  const meta = isPlainObject(scope.params?._meta) ? scope.params._meta : undefined;
  const progressToken = meta?.progressToken;
  const push = (message: JsonRpcRequest | JsonRpcNotification) =>
    core.connections.push(scope.connId, withRelatedRequest(message, scope.id));
  const capability = (name: string): Record<string, unknown> | undefined => {
    const value = core.capabilities.get(scope.connId)?.[name];
    return isPlainObject(value) ? value : undefined;
  };
  const ask = <T>(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<T> =>
    untilAborted(
      core.clientRequests.send({ owner: scope.connId, method, params, timeoutMs, push }),
      signal,
    ) as Promise<T>;
  const requireCapability = (name: string, what: string, present: boolean) => {
    if (!present || !core.connections.isLive(scope.connId)) {
      throw new ClientCapabilityError(`the client did not advertise ${name} (or cannot receive requests), so it cannot ${what}`);
    }
  };

  return {
    connId: scope.connId,
    transport: scope.transport,
    signal,
    requestId: scope.id,
    meta,
    progress(progress: number, total?: number, message?: string) {
      if (typeof progressToken !== 'string' && typeof progressToken !== 'number') return;
      const params: Record<string, unknown> = { progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      push(notification('notifications/progress', params));
    },
    log(level: LogLevel, data: unknown, logger?: string) {
      push(notification('notifications/message', logger === undefined ? { level, data } : { level, logger, data }));
    },
    async elicit(params: ElicitParams): Promise<ElicitResult> {
      const elicitation = capability('elicitation');
      if (params.mode === 'url') {
        requireCapability('elicitation.url', 'be sent to a URL', isPlainObject(elicitation?.url));
        return ask<ElicitResult>('elicitation/create', { ...params }, core.options.elicitationTimeoutMs);
      }
      // A client that advertised `elicitation: {}` (the 2025-06-18 shape) supports form mode.
      const formSupported = elicitation !== undefined && (isPlainObject(elicitation.form) || !isPlainObject(elicitation.url));
      requireCapability('elicitation', 'be asked for input', formSupported);
      const problem = checkRequestedSchema(params.requestedSchema);
      if (problem !== null) throw new TypeError(`ctx.elicit: ${problem}`);
      return ask<ElicitResult>('elicitation/create', { ...params }, core.options.elicitationTimeoutMs);
    },
    async sample(params: Record<string, unknown>) {
      requireCapability('sampling', 'be asked to sample', capability('sampling') !== undefined);
      return ask<Record<string, unknown>>('sampling/createMessage', params, core.options.clientRequestTimeoutMs);
    },
    async listRoots() {
      requireCapability('roots', 'list its roots', capability('roots') !== undefined);
      return ask<{ roots: Array<{ uri: string; name?: string }> }>('roots/list', {}, core.options.clientRequestTimeoutMs);
    },
  };
}
