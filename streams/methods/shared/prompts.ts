/**
 * prompts/list and prompts/get, read-gated. An unknown prompt, a missing
 * required argument or a non-string argument value is -32602. A caller with
 * a principal sees only the prompts whose `requiredScopes` it holds; getting
 * another is -32090 `insufficient_scope:<scopes>`.
 */
import { of } from 'rxjs';
import { insufficientScopeDetail, scopesAllow } from '../../../lib/auth/target-scopes.js';
import { invalidParams, readDenied } from '../../../lib/errors.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { promptListing, toPromptResult } from '../../../lib/prompt-def.js';
import { eventualOf, thenEventual, type Eventual, type LazyAbort } from '../../worker.js';
import { listResult } from './list-result.js';
import { callContext } from '../../call-context.js';
import { readSurface, readThroughMiddleware } from './read-surface.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';

export const listPrompts: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () =>
    listResult(
      core,
      scope,
      'prompts',
      core.options.registry.prompts().filter((def) => scopesAllow(scope.principal, def.requiredScopes)).map(promptListing),
    ),
  );

function renderPrompt(core: ServerCore, scope: RequestScope, abort: LazyAbort, name: string, args: Record<string, string>): Eventual<JsonRpcResponse> {
  const ctx = callContext(core, scope, abort);
  const prompt = core.options.registry.prompt(name);
  if (prompt === undefined) return invalidParams(scope.id, `Prompt not found: ${name}`);
  if (!scopesAllow(scope.principal, prompt.requiredScopes)) return readDenied(scope.id, scope.method, insufficientScopeDetail(prompt.requiredScopes!));
  const missing = (prompt.arguments ?? []).find((a) => a.required === true && args[a.name] === undefined);
  if (missing !== undefined) {
    return invalidParams(scope.id, `Missing required argument: ${missing.name}`, { prompt: name, argument: missing.name });
  }
  return thenEventual(eventualOf(prompt.get(args, ctx)), (outcome) => {
    const result = toPromptResult(prompt, outcome);
    if (result === undefined) throw new TypeError(`prompt ${name} returned an unsupported value`);
    return resultResponse(scope.id, result);
  });
}

export const getPrompt: MethodHandler = (core, scope) => {
  const name = scope.params?.name;
  if (typeof name !== 'string') return of(invalidParams(scope.id, 'prompts/get requires a string name'));
  const rawArgs = scope.params?.arguments ?? {};
  if (!isPlainObject(rawArgs) || !Object.values(rawArgs).every((v) => typeof v === 'string')) {
    return of(invalidParams(scope.id, 'prompts/get arguments must be an object of strings'));
  }
  const args = rawArgs as Record<string, string>;
  return readSurface(core, scope, { name, arguments: args }, (abort) =>
    core.options.middleware === null
      ? renderPrompt(core, scope, abort, name, args)
      : readThroughMiddleware(core, scope, abort, { name, arguments: args }, () => renderPrompt(core, scope, abort, name, args)),
  );
};
