/**
 * tools/list: read-gated, then the tools this caller may call: every tool the
 * tool authorizer does not deny for `(name, {}, ctx)`. Without a tool
 * authorizer a sensitive tool (one registered late, or derived) is refused to
 * every caller at tools/call, so it is not listed either. Ask tools are
 * listed: a tool that needs approval and that no client can discover could
 * never be approved. A throwing authorizer hides the tool (fail closed).
 * Synchronous authorizers keep it synchronous.
 */
import { concatMap, from, map, toArray } from 'rxjs';
import type { Verdict } from '../../lib/authorizers.js';
import { isSensitiveTool, toolListing, type ToolDef } from '../../lib/tool-def.js';
import { authorize } from '../authorize.js';
import { authorizationContext } from '../call-context.js';
import { eventualOf, isLater, thenEventual, toObservable, type Eventual } from '../eventual.js';
import { listResult } from '../list-result.js';
import { readSurface } from '../read-surface.js';
import type { MethodHandler } from '../server-core.js';

function visible(tools: readonly ToolDef[], verdicts: readonly Verdict[]): Record<string, unknown>[] {
  return tools.filter((_tool, i) => verdicts[i]!.kind !== 'deny').map(toolListing);
}

export const listTools: MethodHandler = (core, scope) =>
  readSurface(core, scope, {}, () => {
    const ctx = authorizationContext(scope);
    const authorizer = core.options.authorizer;
    const registered = core.options.registry.tools();
    // The same backstop as tools/call: no authorizer, no sensitive tool for anyone.
    const tools = authorizer === null ? registered.filter((tool) => !isSensitiveTool(tool)) : registered;
    const verdicts: Eventual<Verdict>[] = tools.map((tool) => authorize(authorizer, tool.name, {}, ctx));
    if (!verdicts.some(isLater)) return listResult(core, scope, 'tools', visible(tools, verdicts as Verdict[]));
    // Some authorizer answered Later: wait for every verdict, keeping registration order.
    const all$ = from(verdicts).pipe(
      concatMap((verdict) => toObservable(verdict)),
      toArray(),
      map((settled) => visible(tools, settled)),
    );
    return thenEventual(eventualOf(all$), (listed) => listResult(core, scope, 'tools', listed ?? []));
  });
