/**
 * The resource surface: list, templates/list, read, subscribe, unsubscribe.
 * All read-gated. A read resolves a fixed URI first, then the templates in
 * registration order.
 *
 * A subscription is kept for the connection's life, so subscribe is bounded:
 * only a URI the server serves (a registered resource, or one a template
 * matches), at most `maxSubscriptionUriLength` characters, at most
 * `maxSubscriptionsPerConnection` per connection and `maxSubscriptionsTotal`
 * on the server. Past a bound the answer is -32602 and nothing is kept.
 *
 * A caller with a principal sees only the resources and templates whose
 * `requiredScopes` it holds; reading or subscribing to one it does not is
 * -32090 `insufficient_scope:<scopes>`.
 */
import { of } from 'rxjs';
import { insufficientScopeDetail, resourceScopes, scopesAllow } from '../../../lib/auth/target-scopes.js';
import { invalidParams, readDenied } from '../../../lib/errors.js';
import { resultResponse, type JsonRpcResponse } from '../../../lib/protocol/jsonrpc.js';
import { resourceListing, templateListing, toReadResult } from '../../../lib/resource-def.js';
import { attempt, eventualOf, thenEventual, type Eventual, type LazyAbort } from '../../worker.js';
import { listResult } from './list-result.js';
import { callContext } from '../../call-context.js';
import { readSurface, readThroughMiddleware } from './read-surface.js';
import type { ConnectionState } from '../../state/connections.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';

function requireUri(scope: RequestScope): string | undefined {
  const uri = scope.params?.uri;
  return typeof uri === 'string' ? uri : undefined;
}

export const listResources: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () =>
    listResult(
      core,
      scope,
      'resources',
      core.options.registry.resources().filter((def) => scopesAllow(scope.principal, def.requiredScopes)).map(resourceListing),
    ),
  );

export const listResourceTemplates: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () =>
    listResult(
      core,
      scope,
      'resourceTemplates',
      core.options.registry.resourceTemplates().filter((def) => scopesAllow(scope.principal, def.requiredScopes)).map(templateListing),
    ),
  );

function readUri(core: ServerCore, scope: RequestScope, abort: LazyAbort, uri: string): Eventual<JsonRpcResponse> {
  const ctx = callContext(core, scope, abort);
  const registry = core.options.registry;
  const fixed = registry.resource(uri);
  const templated = fixed === undefined ? registry.matchTemplate(uri) : undefined;
  if (fixed === undefined && templated === undefined) {
    return invalidParams(scope.id, `Resource not found: ${uri}`, { uri });
  }
  const required = fixed?.requiredScopes ?? templated?.def.requiredScopes;
  if (!scopesAllow(scope.principal, required)) return readDenied(scope.id, scope.method, insufficientScopeDetail(required!));
  const mimeType = fixed?.mimeType ?? templated?.def.mimeType;
  return attempt(
    () =>
      thenEventual(
        eventualOf(fixed !== undefined ? fixed.read(uri, ctx) : templated!.def.read(uri, templated!.variables, ctx)),
        (outcome) => {
          const result = toReadResult(uri, mimeType, outcome);
          if (result === undefined) throw new TypeError(`resource reader for ${uri} returned an unsupported value`);
          return resultResponse(scope.id, result) as JsonRpcResponse;
        },
      ),
    (error): JsonRpcResponse => {
      if (error instanceof Error && error.name === 'ResourceNotFoundError') return invalidParams(scope.id, `Resource not found: ${uri}`, { uri });
      throw error;
    },
  );
}

export const readResource: MethodHandler = (core, scope) => {
  const uri = requireUri(scope);
  if (uri === undefined) return of(invalidParams(scope.id, 'resources/read requires a string uri'));
  return readSurface(core, scope, { uri }, (abort) =>
    core.options.middleware === null
      ? readUri(core, scope, abort, uri)
      : readThroughMiddleware(core, scope, abort, { uri }, () => readUri(core, scope, abort, uri)),
  );
};

/** Why `uri` may not be added to this connection's subscriptions, or null when it may. */
function subscriptionRefusal(core: ServerCore, state: ConnectionState, uri: string): string | null {
  const registry = core.options.registry;
  if (registry.resource(uri) === undefined && registry.matchTemplate(uri) === undefined) return `Resource not found: ${uri}`;
  if (state.resourceSubscriptions.has(uri)) return null;
  const { maxSubscriptionsPerConnection, maxSubscriptionsTotal } = core.options;
  if (state.resourceSubscriptions.size >= maxSubscriptionsPerConnection) {
    return `too many resource subscriptions on this connection (max ${maxSubscriptionsPerConnection})`;
  }
  if (core.connections.subscriptions >= maxSubscriptionsTotal) {
    return `too many resource subscriptions on this server (max ${maxSubscriptionsTotal})`;
  }
  return null;
}

export const subscribeResource: MethodHandler = (core, scope) => {
  const uri = requireUri(scope);
  if (uri === undefined) return of(invalidParams(scope.id, 'resources/subscribe requires a string uri'));
  const maxLength = core.options.maxSubscriptionUriLength;
  if (uri.length > maxLength) {
    return of(invalidParams(scope.id, `resources/subscribe uri is longer than ${maxLength} characters`, { maxSubscriptionUriLength: maxLength }));
  }
  return readSurface(core, scope, { uri }, () => {
    const required = resourceScopes(core.options.registry, uri);
    if (!scopesAllow(scope.principal, required)) return readDenied(scope.id, scope.method, insufficientScopeDetail(required));
    const state = core.connections.get(scope.connId);
    // No live subscriber: nothing could receive an update, so nothing is kept.
    if (state === undefined) return resultResponse(scope.id, {});
    const refusal = subscriptionRefusal(core, state, uri);
    if (refusal !== null) return invalidParams(scope.id, refusal, { uri });
    core.connections.subscribeResource(state, uri);
    return resultResponse(scope.id, {});
  });
};

export const unsubscribeResource: MethodHandler = (core, scope) => {
  const uri = requireUri(scope);
  if (uri === undefined) return of(invalidParams(scope.id, 'resources/unsubscribe requires a string uri'));
  return readSurface(core, scope, { uri }, () => {
    const state = core.connections.get(scope.connId);
    if (state !== undefined) core.connections.unsubscribeResource(state, uri);
    return resultResponse(scope.id, {});
  });
};
