/**
 * extensionMethod: an extension's method (lib/extension.ts) as a
 * MethodHandler, so it runs the way a built-in read does:
 *
 * - a method that requires the client's declaration, called by a client that
 *   did not declare the extension: -32021 naming it, at once (no worker);
 * - otherwise one worker (readSurface): the in-flight bounds (server_busy),
 *   the read authorizer on `gateArgs` (a deny is -32090, -31090 modern; an
 *   ask is a deny), the callback timeout, every kind of cancellation
 *   reaching the handler's AbortSignal, and the server's middleware around
 *   the handler, as for resources/read;
 * - the handler's result object is the reply's result (the era's encoding
 *   adds resultType and _meta); an ExtensionError it throws is that error;
 *   anything else thrown is -32603 "MCP callback failed", logged.
 */
import { of } from 'rxjs';
import type { ExtensionMethod } from '../../lib/extension.js';
import { ExtensionError, extensionErrorReply, extensionNotDeclared } from '../../lib/errors.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../lib/protocol/jsonrpc.js';
import { extensionCallContext } from '../call-context.js';
import { attempt, eventualOf, thenEventual, type Eventual, type LazyAbort } from '../worker.js';
import { readSurface, readThroughMiddleware } from '../methods/shared/read-surface.js';
import type { MethodHandler, RequestScope, ServerCore } from '../state/server-core.js';
import { clientDeclares } from './client-declares.js';

function paramsOf(scope: RequestScope): Readonly<Record<string, unknown>> {
  const params = scope.params;
  if (params === undefined) return {};
  if (!Object.hasOwn(params, '_meta')) return params;
  const { _meta: _ignored, ...rest } = params;
  return rest;
}

function run(
  core: ServerCore,
  scope: RequestScope,
  abort: LazyAbort,
  extensionId: string,
  declared: boolean,
  method: ExtensionMethod,
  params: Readonly<Record<string, unknown>>,
): Eventual<JsonRpcResponse> {
  return attempt(
    () =>
      thenEventual(eventualOf(method.handler(params, extensionCallContext(core, scope, abort, extensionId, declared))), (result) => {
        if (!isPlainObject(result)) throw new TypeError(`extension method ${scope.method} answered ${result === null ? 'null' : typeof result}, not a result object`);
        return resultResponse(scope.id, result) as JsonRpcResponse;
      }),
    (error): JsonRpcResponse => {
      if (error instanceof ExtensionError) return extensionErrorReply(scope.id, error);
      throw error;
    },
  );
}

export function extensionMethod(extensionId: string, method: ExtensionMethod): MethodHandler {
  const requires = method.requiresDeclaration !== false;
  return (core, scope) => {
    const declared = clientDeclares(core, scope, extensionId);
    if (requires && !declared) return of(extensionNotDeclared(scope.id, extensionId, scope.method));
    const params = paramsOf(scope);
    const gateArgs = method.gateArgs === undefined ? { ...params } : method.gateArgs(params);
    return readSurface(core, scope, gateArgs, (abort) => {
      const work = (): Eventual<JsonRpcResponse> => run(core, scope, abort, extensionId, declared, method, params);
      return core.options.middleware === null ? work() : readThroughMiddleware(core, scope, abort, { arguments: params }, work);
    });
  };
}
