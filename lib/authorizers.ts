/**
 * Authorizers decide whether a caller may use a tool (the tool seam) or a
 * read surface (the read seam). A decision is `'allow'`, `{ ask: prompt }`
 * or `{ deny: reason }`; anything else is a contract violation and denies.
 */
import type { AuthorizationContext } from './context.js';
import { DENY_DETAIL } from './deny-details.js';
import { ConfigError } from './errors.js';

/** An authorizer's answer: allow, ask the user (`{ ask: question }`), or deny (`{ deny: reason }`). */
export type Decision = 'allow' | { readonly ask: string } | { readonly deny: string };

/** Decides a call: the tool authorizer gets the tool's name and arguments, the read authorizer the method and its target. May answer with a Promise; a throw or any other answer denies. */
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

/** An authorizer that allows everything. */
export function allowAll(): Authorizer {
  return () => 'allow';
}

/** An authorizer that denies everything, with `reason` as the deny detail. */
export function denyAll(reason = 'denied'): Authorizer {
  return () => ({ deny: reason });
}

/**
 * The approval question for one tool: fixed text, or a function of the call's
 * arguments, so the user is told what they approve ("Delete note 3?" rather
 * than "Delete a note?"). What the function throws denies the call
 * (`authorizer_failed`), like a throwing authorizer; a non-string answer is
 * `authorizer_contract_violation`.
 */
export type AskPrompt = string | ((args: Record<string, unknown>, ctx: AuthorizationContext) => string);

/** Options of `allowlist`: the tools to ask about first (`ask`, a question or a function of the arguments) and the deny reason for the rest. */
export interface AllowlistOptions {
  /** Names that need the user's approval first, with the question to ask (text, or built from the arguments). */
  readonly ask?: Readonly<Record<string, AskPrompt>> | undefined;
  /** The deny reason for a name on neither list. */
  readonly reason?: string | undefined;
}

/** What an allowlist names, read back by the server to warn about names and tools that match nothing. */
export interface AllowlistNames {
  readonly allowed: ReadonlySet<string>;
  readonly asked: ReadonlySet<string>;
}

/** Where an allowlist keeps its names: a symbol, so no authorizer of anyone else's can carry it by accident. */
const NAMES = Symbol('rxmcp.allowlist.names');

/** The names an authorizer built by `allowlist` names; undefined for any other authorizer. */
export function allowlistNames(authorizer: Authorizer | null): AllowlistNames | undefined {
  if (authorizer === null) return undefined;
  return (authorizer as Authorizer & { readonly [NAMES]?: AllowlistNames })[NAMES];
}

/**
 * Allows the listed names, asks for the `ask` ones, denies everything else.
 * A server given one warns once, through its logger, about each name that
 * matches no registered tool and each registered tool no rule mentions (a
 * typo otherwise just hides the tool).
 */
export function allowlist(names: Iterable<string>, options: AllowlistOptions = {}): Authorizer {
  const allowed = new Set(names);
  const ask = new Map(Object.entries(options.ask ?? {}));
  for (const [name, prompt] of ask) {
    if (typeof prompt !== 'string' && typeof prompt !== 'function') {
      throw new ConfigError('ask', `allowlist ask.${name} must be a string or a function of the arguments returning one`);
    }
  }
  const reason = options.reason ?? 'not_allowlisted';
  const authorizer: Authorizer = (name, args, ctx) => {
    if (allowed.has(name)) return 'allow';
    const prompt = ask.get(name);
    if (prompt === undefined) return { deny: reason };
    return { ask: typeof prompt === 'string' ? prompt : prompt(args, ctx) };
  };
  const listed: AllowlistNames = { allowed, asked: new Set(ask.keys()) };
  Object.defineProperty(authorizer, NAMES, { value: listed });
  return authorizer;
}
