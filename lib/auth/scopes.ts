/**
 * Scope checks and the authorizers built on the principal. They plug into
 * the existing authorizer seam (`'allow' | {ask} | {deny}`) and compose with
 * `allowlist` through `allOf`: the first deny wins, else the first ask, else
 * allow.
 *
 * A scope hierarchy maps a granted scope to the scopes it implies
 * (`{ 'files:write': ['files:read'] }`), transitively: the MCP spec asks a
 * resource server to let a broader scope satisfy a narrower one.
 */
import { readDecision, type Authorizer, type Decision } from '../authorizers.js';
import type { AuthorizationContext } from '../context.js';
import { ConfigError } from '../errors.js';
import type { Principal } from './principal.js';

/** Scopes that imply others (`{ 'files:write': ['files:read'] }`), transitively. */
export type ScopeHierarchy = Readonly<Record<string, readonly string[]>>;

/** The deny detail of a principal-based authorizer when the call carries no principal. */
export const UNAUTHENTICATED = 'unauthenticated';

/** Every scope `granted` holds, with what the hierarchy says each implies. */
function effectiveScopes(granted: readonly string[], hierarchy: ScopeHierarchy | undefined): ReadonlySet<string> {
  const scopes = new Set(granted);
  if (hierarchy === undefined) return scopes;
  const queue = [...scopes];
  for (let scope = queue.pop(); scope !== undefined; scope = queue.pop()) {
    const implied = Object.hasOwn(hierarchy, scope) ? hierarchy[scope] : undefined;
    for (const next of implied ?? []) {
      if (!scopes.has(next)) {
        scopes.add(next);
        queue.push(next);
      }
    }
  }
  return scopes;
}

/** The required scopes the principal lacks (all of them when there is no principal). */
export function missingScopes(principal: Principal | undefined, required: Iterable<string>, hierarchy?: ScopeHierarchy): string[] {
  const needed = [...new Set(required)];
  if (principal === undefined) return needed;
  const held = effectiveScopes(principal.scopes, hierarchy);
  return needed.filter((scope) => !held.has(scope));
}

/** Whether the principal holds every required scope (directly or through the hierarchy); false without a principal. */
export function hasScopes(principal: Principal | undefined, required: Iterable<string>, hierarchy?: ScopeHierarchy): boolean {
  return principal !== undefined && missingScopes(principal, required, hierarchy).length === 0;
}

/**
 * Allows a caller whose principal holds every one of `scopes`; denies with
 * `insufficient_scope:<all the scopes>` otherwise (all, not only the missing
 * ones, as a step-up challenge would ask), and `unauthenticated` when there
 * is no principal.
 */
export function requireScopes(...scopes: string[]): Authorizer {
  if (scopes.length === 0 || scopes.some((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))) {
    throw new ConfigError('requireScopes', 'requireScopes needs one or more scope tokens (no spaces, " or \\)');
  }
  const denial: Decision = { deny: `insufficient_scope:${[...new Set(scopes)].join(' ')}` };
  return (_name, _args, ctx) => {
    if (ctx.principal === undefined) return { deny: UNAUTHENTICATED };
    return hasScopes(ctx.principal, scopes) ? 'allow' : denial;
  };
}

/** A decision on the calling principal, for `byPrincipal`. */
export type PrincipalDecider = (
  principal: Principal,
  name: string,
  args: Record<string, unknown>,
  ctx: AuthorizationContext,
) => Decision | Promise<Decision>;

/** An authorizer deciding on the verified principal; a call without one is denied `unauthenticated`. */
export function byPrincipal(decide: PrincipalDecider): Authorizer {
  if (typeof decide !== 'function') throw new ConfigError('byPrincipal', 'byPrincipal needs a function');
  return (name, args, ctx) => (ctx.principal === undefined ? { deny: UNAUTHENTICATED } : decide(ctx.principal, name, args, ctx));
}

function asDecision(value: unknown): Decision {
  const verdict = readDecision(value);
  if (verdict.kind === 'allow') return 'allow';
  return verdict.kind === 'ask' ? { ask: verdict.prompt } : { deny: verdict.detail };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

/**
 * Every authorizer must agree, asked in order: the first deny ends it, else
 * the first ask is the answer, else allow. Synchronous while they all are.
 */
export function allOf(...authorizers: Authorizer[]): Authorizer {
  if (authorizers.length === 0 || authorizers.some((authorizer) => typeof authorizer !== 'function')) {
    throw new ConfigError('allOf', 'allOf needs one or more authorizer functions');
  }
  return (name, args, ctx) => {
    const from = (start: number, ask: Decision | undefined): Decision | Promise<Decision> => {
      let firstAsk = ask;
      for (let i = start; i < authorizers.length; i += 1) {
        const answer: unknown = authorizers[i]!(name, args, ctx);
        const fold = (value: unknown): Decision | undefined => {
          const decision = asDecision(value);
          if (decision !== 'allow' && 'deny' in decision) return decision;
          if (decision !== 'allow') firstAsk ??= decision;
          return undefined;
        };
        if (isThenable(answer)) {
          return Promise.resolve(answer).then((value) => fold(value) ?? from(i + 1, firstAsk));
        }
        const denied = fold(answer);
        if (denied !== undefined) return denied;
      }
      return firstAsk ?? 'allow';
    };
    return from(0, undefined);
  };
}
