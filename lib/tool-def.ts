/**
 * A tool definition and the sensitivity rule: a tool annotated
 * `destructiveHint: true` or `sensitive: true` must not be served without an
 * authorizer.
 */
import type { CallbackReturn } from './callback.js';
import type { CallContext } from './context.js';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** What a handler may return; see `toCallToolResult` for how each is read. */
export type ToolOutcome = unknown;

export type ToolHandler = (args: Record<string, unknown>, ctx: CallContext) => CallbackReturn<ToolOutcome>;

export interface ToolDef {
  name: string;
  title?: string;
  description?: string;
  /** Passed through to tools/list untouched. */
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** Same effect as `annotations.destructiveHint: true` for the authorization rule. */
  sensitive?: boolean;
  _meta?: Record<string, unknown>;
  handler: ToolHandler;
}

export function isSensitiveTool(def: ToolDef): boolean {
  return def.sensitive === true || def.annotations?.destructiveHint === true || def.annotations?.sensitive === true;
}

/** The tools/list entry: everything but the handler and our own flags. */
export function toolListing(def: ToolDef): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: def.name };
  if (def.title !== undefined) entry.title = def.title;
  if (def.description !== undefined) entry.description = def.description;
  entry.inputSchema = def.inputSchema ?? { type: 'object' };
  if (def.outputSchema !== undefined) entry.outputSchema = def.outputSchema;
  if (def.annotations !== undefined) entry.annotations = def.annotations;
  if (def.icons !== undefined) entry.icons = def.icons;
  if (def._meta !== undefined) entry._meta = def._meta;
  return entry;
}
