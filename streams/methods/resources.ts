/**
 * The resource surface: list, templates/list, read, subscribe, unsubscribe.
 * All read-gated. A read resolves a fixed URI first, then the templates in
 * registration order.
 */
import { catchError, defer, map, of, throwError } from 'rxjs';
import { invalidParams } from '../../lib/errors.js';
import { resultResponse } from '../../lib/protocol/jsonrpc.js';
import { resourceListing, templateListing, toReadResult } from '../../lib/resource-def.js';
import { fromCallback } from '../from-callback.js';
import { listResult } from '../list-result.js';
import { readSurface } from '../read-surface.js';
import type { MethodHandler, RequestScope } from '../server-core.js';

function requireUri(scope: RequestScope): string | undefined {
  const uri = scope.params?.uri;
  return typeof uri === 'string' ? uri : undefined;
}

export const listResources: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () =>
    of(listResult(core, scope, 'resources', core.options.registry.resources().map(resourceListing))),
  );

export const listResourceTemplates: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () =>
    of(listResult(core, scope, 'resourceTemplates', core.options.registry.resourceTemplates().map(templateListing))),
  );

export const readResource: MethodHandler = (core, scope) => {
  const uri = requireUri(scope);
  if (uri === undefined) return of(invalidParams(scope.id, 'resources/read requires a string uri'));
  return readSurface(core, scope, { uri }, (ctx) => {
    const registry = core.options.registry;
    const fixed = registry.resource(uri);
    const templated = fixed === undefined ? registry.matchTemplate(uri) : undefined;
    if (fixed === undefined && templated === undefined) {
      return of(invalidParams(scope.id, `Resource not found: ${uri}`, { uri }));
    }
    const mimeType = fixed?.mimeType ?? templated?.def.mimeType;
    return defer(() =>
      fromCallback(fixed !== undefined ? fixed.read(uri, ctx) : templated!.def.read(uri, templated!.variables, ctx)),
    ).pipe(
      map((outcome) => {
        const result = toReadResult(uri, mimeType, outcome);
        if (result === undefined) throw new TypeError(`resource reader for ${uri} returned an unsupported value`);
        return resultResponse(scope.id, result);
      }),
      catchError((error: unknown) =>
        error instanceof Error && error.name === 'ResourceNotFoundError'
          ? of(invalidParams(scope.id, `Resource not found: ${uri}`, { uri }))
          : throwError(() => error),
      ),
    );
  });
};

function subscription(kind: 'subscribe' | 'unsubscribe'): MethodHandler {
  return (core, scope) => {
    const uri = requireUri(scope);
    if (uri === undefined) return of(invalidParams(scope.id, `resources/${kind} requires a string uri`));
    return readSurface(core, scope, { uri }, () => {
      const subscriptions = core.connections.get(scope.connId)?.resourceSubscriptions;
      if (kind === 'subscribe') subscriptions?.add(uri);
      else subscriptions?.delete(uri);
      return of(resultResponse(scope.id, {}));
    });
  };
}

export const subscribeResource = subscription('subscribe');
export const unsubscribeResource = subscription('unsubscribe');
