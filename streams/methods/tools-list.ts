/**
 * tools/list: read-gated, then every tool the tool authorizer does not deny
 * for `(name, {}, ctx)`. Ask tools are listed: a tool that needs approval and
 * that no client can discover could never be approved. A throwing authorizer
 * hides the tool (fail closed).
 */
import { concatMap, filter, from, map, toArray } from 'rxjs';
import { toolListing } from '../../lib/tool-def.js';
import { authorize } from '../authorize.js';
import { authorizationContext } from '../call-context.js';
import { listResult } from '../list-result.js';
import { readSurface } from '../read-surface.js';
import type { MethodHandler } from '../server-core.js';

export const listTools: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () => {
    const ctx = authorizationContext(scope);
    return from(core.options.registry.tools()).pipe(
      concatMap((tool) =>
        authorize(core.options.authorizer, tool.name, {}, ctx).pipe(
          filter((verdict) => verdict.kind !== 'deny'),
          map(() => toolListing(tool)),
        ),
      ),
      toArray(),
      map((tools) => listResult(core, scope, 'tools', tools)),
    );
  });
