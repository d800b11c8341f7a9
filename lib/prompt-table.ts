/**
 * The registry's prompts: checked once, held as given; a replacement is
 * announced when its listing or its scopes changed (keyed-table.ts).
 */
import { checkRequiredScopes } from './auth/scope-tokens.js';
import { requireFunction, requireName } from './definition-checks.js';
import type { TableSpec } from './keyed-table.js';
import { promptListing, type PromptDef } from './prompt-def.js';

export function preparePrompt(def: PromptDef): PromptDef {
  requireName('a prompt', def?.name);
  requireFunction('prompt', def.name, def.get, 'get');
  checkRequiredScopes('requiredScopes', `prompt ${def.name}`, def.requiredScopes);
  return def;
}

export const PROMPT_TABLE: TableSpec<PromptDef, PromptDef> = {
  kind: 'prompt',
  field: 'name',
  register: 'registerPrompt',
  keyOf: (def) => {
    requireName('a prompt', def?.name);
    return def.name;
  },
  visible: (def) => ({ listing: promptListing(def), scopes: def.requiredScopes ?? null }),
};
