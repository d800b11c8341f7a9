/**
 * Authorizers decide whether a caller may use a tool (the tool seam) or a
 * read surface (the read seam). A decision is `'allow'`, `{ ask: prompt }`
 * or `{ deny: reason }`; anything else is a contract violation and denies.
 */
import type { AuthorizationContext } from './context.js';
import { DENY_DETAIL } from './deny-details.js';

export type Decision = 'allow' | { readonly ask: string } | { readonly deny: string };

export type Authorizer = (
  name: string,
  args: Record<string, unknown>,
  ctx: AuthorizationContext,
) => Decision | Promise<Decision>;

/** A decision after the server has read it: violations and throws fold into deny. */
export type Verdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'ask'; readonly prompt: string }
  | { readonly kind: 'deny'; readonly detail: string; readonly failure?: unknown };

export const ALLOW: Verdict = { kind: 'allow' };

export function readDecision(value: unknown): Verdict {
  if (value === 'allow') return ALLOW;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const record = value as Record<string, unknown>;
    if (keys.length === 1 && typeof record.ask === 'string') return { kind: 'ask', prompt: record.ask };
    if (keys.length === 1 && typeof record.deny === 'string') return { kind: 'deny', detail: record.deny };
  }
  return { kind: 'deny', detail: DENY_DETAIL.authorizerContractViolation };
}

export function allowAll(): Authorizer {
  return () => 'allow';
}

export function denyAll(reason = 'denied'): Authorizer {
  return () => ({ deny: reason });
}

export interface AllowlistOptions {
  /** Names that need the user's approval first, with the prompt to show. */
  readonly ask?: Readonly<Record<string, string>>;
  /** The deny reason for a name on neither list. */
  readonly reason?: string;
}

/** Allows the listed names, asks for the `ask` ones, denies everything else. */
export function allowlist(names: Iterable<string>, options: AllowlistOptions = {}): Authorizer {
  const allowed = new Set(names);
  const ask = new Map(Object.entries(options.ask ?? {}));
  const reason = options.reason ?? 'not_allowlisted';
  return (name) => {
    if (allowed.has(name)) return 'allow';
    const prompt = ask.get(name);
    return prompt === undefined ? { deny: reason } : { ask: prompt };
  };
}
