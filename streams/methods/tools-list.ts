/**
 * tools/list: read-gated, then every tool the tool authorizer does not deny
 * for `(name, {}, ctx)`. Ask tools are listed: a tool that needs approval and
 * that no client can discover could never be approved. A throwing authorizer
 * hides the tool (fail closed, and logged). Synchronous authorizers keep it synchronous.
 */
import { concatMap, from, map, toArray } from 'rxjs';
import type { Verdict } from '../../lib/authorizers.js';
import { toolListing, type ToolDef } from '../../lib/tool-def.js';
import { authorize } from '../authorize.js';
import { authorizationContext } from '../call-context.js';
import { eventualOf, isLater, thenEventual, toObservable, type Eventual } from '../eventual.js';
import { listResult } from '../list-result.js';
import { readSurface } from '../read-surface.js';
import type { MethodHandler, RequestScope, ServerCore } from '../server-core.js';
import { reportAuthorizerFault } from '../worker-scope.js';

function visible(core: ServerCore, scope: RequestScope, tools: readonly ToolDef[], verdicts: readonly Verdict[]): Record<string, unknown>[] {
  // One log line per listing at most: the first tool the authorizer failed on.
  const fault = verdicts.findIndex((v) => v.kind === 'deny' && (v.detail === 'authorizer_failed' || v.detail === 'authorizer_contract_violation'));
  if (fault >= 0) reportAuthorizerFault(core, scope, verdicts[fault]!, tools[fault]!.name);
  return tools.filter((_tool, i) => verdicts[i]!.kind !== 'deny').map(toolListing);
}

export const listTools: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () => {
    const ctx = authorizationContext(scope);
    const tools = core.options.registry.tools();
    const verdicts: Eventual<Verdict>[] = tools.map((tool) => authorize(core.options.authorizer, tool.name, {}, ctx));
    if (!verdicts.some(isLater)) return listResult(core, scope, 'tools', visible(core, scope, tools, verdicts as Verdict[]));
    // Some authorizer answered Later: wait for every verdict, keeping registration order.
    const all$ = from(verdicts).pipe(
      concatMap((verdict) => toObservable(verdict)),
      toArray(),
      map((settled) => visible(core, scope, tools, settled)),
    );
    return thenEventual(eventualOf(all$), (listed) => listResult(core, scope, 'tools', listed ?? []));
  });
