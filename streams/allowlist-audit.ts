/**
 * An allowlist that names a tool nobody registered, or a registered tool that
 * no rule of it mentions, fails silently: the tool is denied and hidden from
 * tools/list, and the only trace is a `not_allowlisted` deny a client may
 * never show. So a server whose tool authorizer is an `allowlist(...)` warns,
 * through its logger:
 *
 * - once at start (when the server is created, or at the registry's first
 *   tools if it had none yet): the names that match no tool, in one line, and
 *   the tools no rule mentions, in one line;
 * - for each tool registered later that no rule mentions, once per name.
 *
 * Any other authorizer is the owner's code, which this cannot read: nothing
 * is said. Synchronous on the registry's changes, so no timer is added to the
 * server's clock.
 */
import { filter, Subscription } from 'rxjs';
import { allowlistNames, type AllowlistNames, type Authorizer } from '../lib/authorizers.js';
import type { Logger } from '../lib/logger.js';
import type { Registry } from '../lib/registry.js';

/** Tool names remembered as looked at; past it later tools are not reported (derived tools may come by the thousand). */
const MAX_REMEMBERED = 1024;

export interface AllowlistAuditSetup {
  readonly registry: Registry;
  readonly authorizer: Authorizer | null;
  readonly logger: Logger;
}

function quoted(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(', ');
}

function mentioned(names: AllowlistNames, tool: string): boolean {
  return names.allowed.has(tool) || names.asked.has(tool);
}

export function auditAllowlist({ registry, authorizer, logger }: AllowlistAuditSetup): Subscription {
  const names = allowlistNames(authorizer);
  if (names === undefined) return Subscription.EMPTY;
  const seen = new Set<string>();
  let started = false;

  /** The registered tools not looked at before, now remembered (up to the bound). */
  const freshTools = (): string[] => {
    const fresh: string[] = [];
    for (const tool of registry.tools()) {
      if (seen.has(tool.name) || seen.size >= MAX_REMEMBERED) continue;
      seen.add(tool.name);
      fresh.push(tool.name);
    }
    return fresh;
  };

  const start = (): void => {
    started = true;
    const tools = freshTools();
    const registered = new Set(tools);
    const unknown = [...names.allowed, ...names.asked].filter((name) => !registered.has(name));
    if (unknown.length > 0) {
      logger.warn(
        { names: unknown },
        `allowlist names ${quoted(unknown)}, but no tool is registered under ${unknown.length === 1 ? 'that name' : 'those names'}: a typo? (registered: ${quoted(tools)})`,
      );
    }
    const unmentioned = tools.filter((tool) => !mentioned(names, tool));
    if (unmentioned.length > 0) {
      logger.warn(
        { tools: unmentioned },
        `no allowlist rule mentions ${quoted(unmentioned)}: denied (not_allowlisted) and hidden from tools/list; add ${unmentioned.length === 1 ? 'it' : 'them'} to the allowlist's names or its ask to serve ${unmentioned.length === 1 ? 'it' : 'them'}`,
      );
    }
  };

  const later = (): void => {
    for (const tool of freshTools()) {
      if (mentioned(names, tool)) continue;
      logger.warn(
        { tool },
        `tool ${JSON.stringify(tool)} was registered, but no allowlist rule mentions it: denied (not_allowlisted) and hidden from tools/list; add it to the allowlist's names or its ask to serve it`,
      );
    }
  };

  // A server built before its tools are registered starts at the registry's first tools, not with every name unknown.
  if (registry.tools().length > 0) start();
  return registry.changes$.pipe(filter((change) => change === 'tools')).subscribe(() => {
    if (registry.tools().length === 0) return;
    if (started) later();
    else start();
  });
}
