/**
 * completion/complete: values for a prompt argument (`ref/prompt`) or a
 * resource template variable (`ref/resource`), at most 100 of them, with
 * `total` and `hasMore` saying what was cut. A caller with a principal
 * lacking the prompt's or template's `requiredScopes` gets -32090
 * `insufficient_scope:<scopes>`: completions tell about what they complete.
 */
import { of } from 'rxjs';
import { insufficientScopeDetail, scopesAllow } from '../../../lib/auth/target-scopes.js';
import { invalidParams, readDenied, shownValue } from '../../../lib/errors.js';
import { isPlainObject, resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import type { Completer } from '../../../lib/resource-def.js';
import { completionContext } from '../../call-context.js';
import { eventualOf, thenEventual, type Eventual, type LazyAbort } from '../../worker.js';
import { readSurface, readThroughMiddleware } from './read-surface.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';

export const MAX_COMPLETION_VALUES = 100;

function completeArgument(
  core: ServerCore,
  scope: RequestScope,
  abort: LazyAbort,
  ref: Record<string, unknown>,
  argName: string,
  value: string,
  chosen: Record<string, string>,
): Eventual<JsonRpcResponse> {
  const registry = core.options.registry;
  let completer: Completer | undefined;
  let required: readonly string[] | undefined;
  if (ref.type === 'ref/prompt') {
    const prompt = typeof ref.name === 'string' ? registry.prompt(ref.name) : undefined;
    if (prompt === undefined) return invalidParams(scope.id, `Prompt not found: ${shownValue(ref.name)}`);
    completer = prompt.complete?.[argName];
    required = prompt.requiredScopes;
  } else {
    const template = typeof ref.uri === 'string' ? registry.resourceTemplate(ref.uri) : undefined;
    if (template === undefined) return invalidParams(scope.id, `Resource template not found: ${shownValue(ref.uri)}`);
    completer = template.complete?.[argName];
    required = template.requiredScopes;
  }
  if (!scopesAllow(scope.principal, required)) return readDenied(scope.id, scope.method, insufficientScopeDetail(required!));
  if (completer === undefined) return resultResponse(scope.id, { completion: { values: [], total: 0, hasMore: false } });
  const ctx = completionContext(core, scope, abort, chosen);
  return thenEventual(eventualOf(completer(value, ctx)), (values) => {
    const all = (Array.isArray(values) ? values : []).filter((v): v is string => typeof v === 'string');
    const shown = all.slice(0, MAX_COMPLETION_VALUES);
    return resultResponse(scope.id, { completion: { values: shown, total: all.length, hasMore: all.length > shown.length } });
  });
}

export const complete: MethodHandler = (core, scope) => {
  const ref = scope.params?.ref;
  const argument = scope.params?.argument;
  if (!isPlainObject(ref) || (ref.type !== 'ref/prompt' && ref.type !== 'ref/resource')) {
    return of(invalidParams(scope.id, 'completion/complete requires ref of type ref/prompt or ref/resource'));
  }
  if (!isPlainObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    return of(invalidParams(scope.id, 'completion/complete requires argument {name, value} of strings'));
  }
  const context = scope.params?.context;
  const chosen = isPlainObject(context) && isPlainObject(context.arguments) ? context.arguments : {};
  const argName = argument.name;
  const value = argument.value;
  const given = chosen as Record<string, string>;
  return readSurface(core, scope, { ref }, (abort) =>
    core.options.middleware === null
      ? completeArgument(core, scope, abort, ref, argName, value, given)
      : readThroughMiddleware(core, scope, abort, {}, () => completeArgument(core, scope, abort, ref, argName, value, given)),
  );
};
