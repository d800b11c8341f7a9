/** Prompts: named message templates with declared arguments. */
import type { CallbackReturn } from './callback.js';
import type { CallContext } from './context.js';
import type { Completer } from './resource-def.js';
import type { Icon } from './tool-def.js';

/** An argument a prompt declares; a `required` one is a `string` in `get`. */
export interface PromptArgument {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly required?: boolean | undefined;
}

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: Record<string, unknown>;
}

/** A string (one user text message), an array of messages, or `{ messages, description? }`. */
export type PromptOutcome = unknown;

/** A prompt as registered: its name, arguments and `get`, which answers a string, messages or `{ messages, description }`. */
export interface PromptDef {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  arguments?: readonly PromptArgument[] | undefined;
  icons?: Icon[] | undefined;
  _meta?: Record<string, unknown> | undefined;
  /** OAuth scopes a caller's principal must hold to see and get it (see ToolDef.requiredScopes). Not listed. */
  requiredScopes?: readonly string[] | undefined;
  /** Answers prompts/get: a string (one user message), messages, or `{ messages, description }`. */
  get: (args: Record<string, string>, ctx: CallContext) => CallbackReturn<PromptOutcome>;
  /** Completers for arguments, by argument name. */
  complete?: Record<string, Completer> | undefined;
}

/** Names the arguments mark `required: true`: present whenever get runs (a call without one is -32602 first). */
type RequiredNames<A extends readonly PromptArgument[]> = A[number] extends infer P
  ? P extends { readonly name: infer N extends string; readonly required: true } ? N : never
  : never;

/**
 * What a prompt's `get` receives, from its declared arguments: a required one
 * is a `string`, any other `string | undefined`. Arguments not written as a
 * literal list (a `PromptArgument[]` variable) give `Record<string, string>`,
 * as before.
 */
export type PromptArgs<A extends readonly PromptArgument[]> = string extends A[number]['name']
  ? Record<string, string>
  : { readonly [N in RequiredNames<A>]: string } & { readonly [N in Exclude<A[number]['name'], RequiredNames<A>>]?: string | undefined };

/** A PromptDef whose `get` sees its declared arguments by name (registerPrompt infers `A` from `arguments`). */
export interface TypedPromptDef<A extends readonly PromptArgument[]> extends Omit<PromptDef, 'arguments' | 'get' | 'complete'> {
  arguments?: A | undefined;
  /** Answers prompts/get, with a required argument typed as a string. */
  get: (args: PromptArgs<A>, ctx: CallContext) => CallbackReturn<PromptOutcome>;
  /** Completers for arguments, by argument name. */
  complete?: Partial<Record<A[number]['name'], Completer>> | undefined;
}

export function promptListing(def: PromptDef): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: def.name };
  for (const key of ['title', 'description', 'arguments', 'icons', '_meta'] as const) {
    if (def[key] !== undefined) entry[key] = def[key];
  }
  return entry;
}

function isMessage(value: unknown): value is PromptMessage {
  const m = value as PromptMessage;
  return (
    typeof value === 'object' &&
    value !== null &&
    (m.role === 'user' || m.role === 'assistant') &&
    typeof m.content === 'object' &&
    m.content !== null
  );
}

/** Reads a prompt's outcome as a GetPromptResult; `undefined` when it is none of the accepted shapes. */
export function toPromptResult(def: PromptDef, outcome: unknown): Record<string, unknown> | undefined {
  const withDescription = (messages: PromptMessage[], description = def.description) =>
    description === undefined ? { messages } : { description, messages };
  if (typeof outcome === 'string') return withDescription([{ role: 'user', content: { type: 'text', text: outcome } }]);
  if (Array.isArray(outcome) && outcome.every(isMessage)) return withDescription(outcome);
  if (typeof outcome === 'object' && outcome !== null) {
    const o = outcome as { messages?: unknown; description?: unknown };
    if (Array.isArray(o.messages) && o.messages.every(isMessage)) {
      return withDescription(o.messages, typeof o.description === 'string' ? o.description : def.description);
    }
  }
  return undefined;
}
