/**
 * tools/list: read-gated, then the tools this caller may call: every tool the
 * tool authorizer does not deny for `(name, {}, ctx)`. Without a tool
 * authorizer a sensitive tool (one registered late, or derived) is refused to
 * every caller at tools/call, so it is not listed either. Ask tools are
 * listed: a tool that needs approval and that no client can discover could
 * never be approved. A throwing authorizer hides the tool (fail closed).
 * Synchronous authorizers keep it synchronous. A caller with a principal
 * does not see a tool whose `requiredScopes` it lacks (it could not call it).
 */
import { concatMap, from, map, toArray } from 'rxjs';
import type { Verdict } from '../../../lib/authorizers.js';
import { scopesAllow } from '../../../lib/auth/target-scopes.js';
import { isSensitiveTool, type ToolDef } from '../../../lib/tool-def.js';
import { authorize } from '../../authorize.js';
import { eventualOf, isLater, thenEventual, toObservable, type Eventual } from '../../worker.js';
import { listResult } from './list-result.js';
import { readSurface } from './read-surface.js';
import type { MethodHandler, RequestScope, ServerCore } from '../../state/server-core.js';
import { reportAuthorizerFault } from '../../worker-scope.js';

function visible(
  core: ServerCore,
  scope: RequestScope,
  tools: readonly ToolDef[],
  listings: readonly Record<string, unknown>[],
  verdicts: readonly Verdict[],
): Record<string, unknown>[] {
  // One log line per listing at most: the first tool the authorizer failed on.
  const fault = verdicts.findIndex((v) => v.kind === 'deny' && (v.detail === 'authorizer_failed' || v.detail === 'authorizer_contract_violation'));
  if (fault >= 0) reportAuthorizerFault(core, scope, verdicts[fault]!, tools[fault]!.name);
  return listings.filter((_listing, i) => verdicts[i]!.kind !== 'deny');
}

export const listTools: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () => {
    const authorizer = core.options.authorizer;
    // The same backstop as tools/call: no authorizer, no sensitive tool for anyone.
    const callable = core.options.registry
      .tools()
      .map((tool) => (authorizer !== null || !isSensitiveTool(tool)) && scopesAllow(scope.principal, tool.requiredScopes));
    const tools = core.options.registry.tools().filter((_tool, i) => callable[i]);
    const listings = core.options.registry.toolListings().filter((_listing, i) => callable[i]);
    const verdicts: Eventual<Verdict>[] = tools.map((tool) => authorize(authorizer, tool.name, {}, scope));
    if (!verdicts.some(isLater)) return listResult(core, scope, 'tools', visible(core, scope, tools, listings, verdicts as Verdict[]));
    // Some authorizer answered Later: wait for every verdict, keeping registration order.
    const all$ = from(verdicts).pipe(
      concatMap((verdict) => toObservable(verdict)),
      toArray(),
      map((settled) => visible(core, scope, tools, listings, settled)),
    );
    return thenEventual(eventualOf(all$), (listed) => listResult(core, scope, 'tools', listed ?? []));
  });
