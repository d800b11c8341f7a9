/**
 * tools/list: read-gated, then every tool the tool authorizer does not deny
 * for `(name, {}, ctx)`. Ask tools are listed: a tool that needs approval and
 * that no client can discover could never be approved. A throwing authorizer
 * hides the tool (fail closed). Synchronous authorizers keep it synchronous.
 */
import { concatMap, from, map, toArray } from 'rxjs';
import type { Verdict } from '../../lib/authorizers.js';
import { authorize } from '../authorize.js';
import { authorizationContext } from '../call-context.js';
import { eventualOf, isLater, thenEventual, toObservable, type Eventual } from '../eventual.js';
import { listResult } from '../list-result.js';
import { readSurface } from '../read-surface.js';
import type { MethodHandler } from '../server-core.js';

function visible(listings: readonly Record<string, unknown>[], verdicts: readonly Verdict[]): Record<string, unknown>[] {
  return listings.filter((_listing, i) => verdicts[i]!.kind !== 'deny');
}

export const listTools: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () => {
    const ctx = authorizationContext(scope);
    const tools = core.options.registry.tools();
    const listings = core.options.registry.toolListings();
    const verdicts: Eventual<Verdict>[] = tools.map((tool) => authorize(core.options.authorizer, tool.name, {}, ctx));
    if (!verdicts.some(isLater)) return listResult(core, scope, 'tools', visible(listings, verdicts as Verdict[]));
    // Some authorizer answered Later: wait for every verdict, keeping registration order.
    const all$ = from(verdicts).pipe(
      concatMap((verdict) => toObservable(verdict)),
      toArray(),
      map((settled) => visible(listings, settled)),
    );
    return thenEventual(eventualOf(all$), (listed) => listResult(core, scope, 'tools', listed ?? []));
  });
