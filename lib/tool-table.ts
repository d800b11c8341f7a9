/**
 * The registry's tools: each definition prepared once (its schemas compiled,
 * its header marks checked) into a ToolEntry, and the table's rules for
 * tools (keyed-table.ts): a derived tool replaces a derived one silently,
 * a new name is checked against the spec's naming rule, and a replacement
 * is announced when its listing, its scopes or its sensitivity changed.
 */
import { checkRequiredScopes } from './auth/scope-tokens.js';
import { requireFunction, requireName } from './definition-checks.js';
import type { TableSpec } from './keyed-table.js';
import { isSensitiveTool, toolListing, type ToolDef } from './tool-def.js';
import { checkHeaderMarks } from './tool-header-marks.js';
import type { SchemaCompiler, ToolSchemas } from './tool-schemas.js';
import type { ToolNameWarnings } from './tool-names.js';

export interface ToolEntry {
  readonly def: ToolDef;
  readonly derived: boolean;
  readonly schemas: ToolSchemas;
}

const TASK_SUPPORT = new Set(['forbidden', 'optional', 'required']);

function checkTaskPolicy(def: ToolDef): void {
  if (def.taskSupport !== undefined && !TASK_SUPPORT.has(def.taskSupport)) {
    throw new TypeError(`tool ${def.name}: taskSupport must be 'forbidden', 'optional' or 'required'`);
  }
  const after = def.taskAfterMs;
  if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) throw new TypeError(`tool ${def.name}: taskAfterMs must be a non-negative integer`);
}

export function prepareTool(compiler: SchemaCompiler, def: ToolDef, derived: boolean): ToolEntry {
  requireName('a tool', def?.name);
  requireFunction('tool', def.name, def.handler, 'handler');
  checkRequiredScopes('requiredScopes', `tool ${def.name}`, def.requiredScopes);
  checkTaskPolicy(def);
  const schemas = compiler.compileTool(def);
  checkHeaderMarks(def.name, schemas.json.input);
  return { def, derived, schemas };
}

export function toolTableSpec(nameWarnings: ToolNameWarnings): TableSpec<ToolDef, ToolEntry> {
  return {
    kind: 'tool',
    field: 'name',
    register: 'registerTool',
    keyOf: (def) => {
      requireName('a tool', def?.name);
      return def.name;
    },
    // Sensitivity decides who is listed a tool when no authorizer is set (tools-list.ts).
    visible: (entry) => ({
      listing: toolListing(entry.def, entry.schemas.json),
      scopes: entry.def.requiredScopes ?? null,
      sensitive: isSensitiveTool(entry.def),
    }),
    // A session's view re-registers its derived tools as it changes; nothing else replaces silently.
    mayReplaceSilently: (taken, next) => taken.derived && next.derived,
    placed: (entry, previous) => {
      if (previous === undefined) nameWarnings.check(entry.def.name);
    },
  };
}
