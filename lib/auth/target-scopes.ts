/**
 * Declared scopes: the `requiredScopes` of a tool, resource, resource
 * template or prompt, read from the registry. One source drives three
 * checks that must agree: the HTTP edge's 403 step-up gate (before the
 * response starts), the core's own check at call time (for transports
 * without an HTTP status: WebSocket, stdio, direct callers), and list
 * filtering; and it feeds `scopes_supported` in the Protected Resource
 * Metadata.
 *
 * A target declares scopes; whether they are judged depends on the call
 * having a principal: without one (no authenticator anywhere) nothing is
 * hidden or refused here, which is what the authorizers are for.
 */
import type { Registry } from '../registry.js';
import type { Principal } from './principal.js';
import { missingScopes } from './scopes.js';

const NONE: readonly string[] = Object.freeze([]);

/** The scopes a request's target declares: its tool, prompt, or the resource (fixed URI first, then the first matching template). */
export function targetScopes(registry: Registry, method: string, params: Record<string, unknown> | undefined): readonly string[] {
  if (params === undefined) return NONE;
  switch (method) {
    case 'tools/call':
      return typeof params.name === 'string' ? (registry.tool(params.name)?.requiredScopes ?? NONE) : NONE;
    case 'prompts/get':
      return typeof params.name === 'string' ? (registry.prompt(params.name)?.requiredScopes ?? NONE) : NONE;
    case 'resources/read':
    case 'resources/subscribe':
      return typeof params.uri === 'string' ? resourceScopes(registry, params.uri) : NONE;
    default:
      return NONE;
  }
}

export function resourceScopes(registry: Registry, uri: string): readonly string[] {
  const fixed = registry.resource(uri);
  if (fixed !== undefined) return fixed.requiredScopes ?? NONE;
  return registry.matchTemplate(uri)?.def.requiredScopes ?? NONE;
}

/** Every scope any registered target declares, sorted (for `scopes_supported`). */
export function declaredScopes(registry: Registry): string[] {
  const all = new Set<string>();
  const add = (scopes: readonly string[] | undefined) => {
    for (const scope of scopes ?? NONE) all.add(scope);
  };
  for (const tool of registry.tools()) add(tool.requiredScopes);
  for (const resource of registry.resources()) add(resource.requiredScopes);
  for (const template of registry.resourceTemplates()) add(template.requiredScopes);
  for (const prompt of registry.prompts()) add(prompt.requiredScopes);
  return [...all].sort();
}

/** Whether a caller may see and use a target: always without a principal, else when it holds every declared scope. */
export function scopesAllow(principal: Principal | undefined, required: readonly string[] | undefined): boolean {
  if (principal === undefined || required === undefined || required.length === 0) return true;
  return missingScopes(principal, required).length === 0;
}

/** The deny detail of a call refused for its target's scopes, naming all of them (as a step-up challenge would). */
export function insufficientScopeDetail(required: readonly string[]): string {
  return `insufficient_scope:${[...new Set(required)].join(' ')}`;
}
