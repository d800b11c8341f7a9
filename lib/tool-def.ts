/**
 * A tool definition and the sensitivity rule: a tool annotated
 * `destructiveHint: true` or `sensitive: true` must not be served without an
 * authorizer. `ToolDef` is the untyped form the registry stores;
 * `TypedToolDef` is what `registerTool` and `defineTool` accept, with the
 * handler typed from the schemas (see tool-types.ts).
 */
import type { CallbackReturn } from './callback.js';
import type { CallContext } from './context.js';
import type { ToolArgs, ToolResultOf, ToolReturn, ToolSchema } from './tool-types.js';
import type { TaskSupport } from './tasks/task-record.js';

/** MCP tool annotations (hints to the client); `destructiveHint: true` makes a tool sensitive. */
export interface ToolAnnotations {
  title?: string | undefined;
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
  idempotentHint?: boolean | undefined;
  openWorldHint?: boolean | undefined;
  [key: string]: unknown;
}

/** An icon of a tool, resource or prompt. */
export interface Icon {
  src: string;
  mimeType?: string | undefined;
  sizes?: string[] | undefined;
  theme?: 'light' | 'dark' | undefined;
}

/** What a handler may return; see `toCallToolResult` for how each is read. */
export type ToolOutcome = unknown;

/** An untyped tool handler: arguments and the call context in, a value, Promise or Observable out. */
export type ToolHandler = (args: Record<string, unknown>, ctx: CallContext) => CallbackReturn<ToolOutcome>;

interface ToolFields {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  annotations?: ToolAnnotations | undefined;
  icons?: Icon[] | undefined;
  /** Same effect as `annotations.destructiveHint: true` for the authorization rule. */
  sensitive?: boolean | undefined;
  /**
   * OAuth scopes a caller's principal must hold to see and call the tool
   * (checked only when the call has a principal; on HTTP, a 403 step-up
   * challenge before the response starts). Not listed to clients.
   */
  requiredScopes?: readonly string[] | undefined;
  /**
   * Whether a call may run as a task (the tasks extension): `forbidden` (the
   * default), `optional` (the server's tasks policy decides) or `required`
   * (a client that did not declare the extension gets -32021). Listed as
   * `execution.taskSupport`.
   */
  taskSupport?: TaskSupport | undefined;
  /** For an optional-task tool: the `tasks.afterMs` policy of this tool (0: a task at once; N: only if not answered within N ms). */
  taskAfterMs?: number | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/** A tool as registered: its name, schemas, annotations and handler. With a Standard Schema or a JSON Schema literal, `TypedToolDef` types the handler. */
export interface ToolDef extends ToolFields {
  /**
   * A raw JSON Schema (passed through to tools/list untouched) or a Standard
   * Schema (converted to JSON Schema for tools/list); either way with
   * `type: "object"` at its root.
   */
  inputSchema?: ToolSchema;
  outputSchema?: ToolSchema;
  // A method, so a typed definition (narrower arguments) still is a ToolDef.
  /** Runs the tool: its arguments (validated against inputSchema) and the call context in; a value, a Promise or an Observable (its last value) out. */
  handler(args: Record<string, unknown>, ctx: CallContext): CallbackReturn<ToolOutcome>;
}

/** A tool whose handler's arguments and result the compiler checks against its schemas. */
export interface TypedToolDef<
  I extends ToolSchema | undefined = undefined,
  O extends ToolSchema | undefined = undefined,
  R extends ToolResultOf<O> = ToolResultOf<O>,
> extends ToolFields {
  inputSchema?: I;
  outputSchema?: O;
  /** Runs the tool: the arguments typed from inputSchema, the result checked against outputSchema by the compiler. */
  handler: (args: ToolArgs<I>, ctx: CallContext) => ToolReturn<R>;
}

/**
 * A typed tool definition kept for later (`registerTools`, a module of
 * tools): the same checks as `registerTool` gives inline, returned as is.
 */
export function defineTool<
  const I extends ToolSchema | undefined = undefined,
  const O extends ToolSchema | undefined = undefined,
  const R extends ToolResultOf<O> = ToolResultOf<O>,
>(def: TypedToolDef<I, O, R>): ToolDef {
  return def as ToolDef;
}

/** Whether a tool is sensitive (annotated `destructiveHint: true` or `sensitive: true`): never served without a tool authorizer. */
export function isSensitiveTool(def: ToolDef): boolean {
  return def.sensitive === true || def.annotations?.destructiveHint === true || def.annotations?.sensitive === true;
}

/** Whether a tool may run as a task (`taskSupport` optional or required). */
export function declaresTasks(def: ToolDef): boolean {
  return def.taskSupport === 'optional' || def.taskSupport === 'required';
}

/** The JSON Schemas a tool is listed with (a Standard Schema's converted). */
export interface ToolJsonSchemas {
  readonly input: Record<string, unknown> | undefined;
  readonly output: Record<string, unknown> | undefined;
}

/** The tools/list entry: everything but the handler and our own flags. */
export function toolListing(def: ToolDef, schemas: ToolJsonSchemas): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: def.name };
  if (def.title !== undefined) entry.title = def.title;
  if (def.description !== undefined) entry.description = def.description;
  entry.inputSchema = schemas.input ?? { type: 'object' };
  if (schemas.output !== undefined) entry.outputSchema = schemas.output;
  if (def.annotations !== undefined) entry.annotations = def.annotations;
  if (def.icons !== undefined) entry.icons = def.icons;
  if (declaresTasks(def)) entry.execution = { taskSupport: def.taskSupport };
  if (def._meta !== undefined) entry._meta = def._meta;
  return entry;
}
