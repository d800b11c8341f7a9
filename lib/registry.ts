/**
 * The registry of what a server offers: tools, resources, resource templates
 * and prompts. A tool registered with `{ derived: true }` comes and goes with
 * a session's view and is left out of the boot check; every other tool is
 * static. A second registration under a taken name (tool or prompt name,
 * resource URI, URI template) is a ConfigError unless it says
 * `{ replace: true }`; only a derived tool may silently replace a derived
 * one, since a session's view re-registers them as it changes. Tool names
 * outside the spec's rule (1-128 of `A-Z a-z 0-9 _ - .`) are warned about,
 * once. Changes are announced on `changes$` so the server can tell clients.
 */
import { Subject, type Observable } from 'rxjs';
import { checkRequiredScopes } from './auth/scope-tokens.js';
import { ConfigError } from './errors.js';
import { isLogger, type Logger } from './logger.js';
import type { PromptDef } from './prompt-def.js';
import type { ResourceDef, ResourceTemplateDef } from './resource-def.js';
import { toolListing, type ToolDef, type TypedToolDef } from './tool-def.js';
import { checkHeaderMarks } from './tool-header-marks.js';
import { SchemaCompiler, type JsonSchemaConverter, type ToolSchemas } from './tool-schemas.js';
import type { ToolResultOf, ToolSchema } from './tool-types.js';
import { ToolNameWarnings } from './tool-names.js';
import { compileUriTemplate, type TemplateMatcher } from './uri-template.js';

export type RegistryChange = 'tools' | 'resources' | 'prompts';

export interface RegistryOptions {
  /** Where tool-name warnings go; default the logger of the first server given this registry. */
  logger?: Logger;
  /**
   * Converts a Standard Schema whose library cannot convert itself (no
   * `~standard.jsonSchema`) to JSON Schema; default none (such a schema is refused).
   */
  toJsonSchema?: JsonSchemaConverter;
}

export interface RegisterOptions {
  /** Replace what is registered under the same name instead of refusing; default false. */
  readonly replace?: boolean;
}

export interface RegisterToolOptions extends RegisterOptions {
  readonly derived?: boolean;
}

interface ToolEntry {
  readonly def: ToolDef;
  readonly derived: boolean;
  readonly schemas: ToolSchemas;
}

interface TemplateEntry {
  readonly def: ResourceTemplateDef;
  readonly match: TemplateMatcher;
}

function requireName(kind: string, value: unknown, field = 'name'): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new TypeError(`${kind} needs a non-empty string ${field}`);
  }
}

function requireFunction(kind: string, name: string, value: unknown, field: string): void {
  if (typeof value !== 'function') throw new TypeError(`${kind} ${name} needs a ${field} function`);
}

function refuseDuplicate(kind: string, key: string, field: string): never {
  throw new ConfigError(
    field,
    `${kind} ${JSON.stringify(key)} is already registered; unregister it first, or pass { replace: true } to replace it`,
  );
}

function registryOptions(options: RegistryOptions): { logger: Logger | null; toJsonSchema: JsonSchemaConverter | null } {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'Registry options must be an object');
  if (options.logger !== undefined && !isLogger(options.logger)) {
    throw new ConfigError('logger', 'logger must have debug, info, warn and error methods (a pino logger does)');
  }
  if (options.toJsonSchema !== undefined && typeof options.toJsonSchema !== 'function') {
    throw new ConfigError('toJsonSchema', 'toJsonSchema must be a function (schema, io) => JSON Schema');
  }
  return { logger: options.logger ?? null, toJsonSchema: options.toJsonSchema ?? null };
}

export class Registry {
  private readonly toolEntries = new Map<string, ToolEntry>();
  private readonly resourceDefs = new Map<string, ResourceDef>();
  private readonly templateEntries = new Map<string, TemplateEntry>();
  private readonly promptDefs = new Map<string, PromptDef>();
  private readonly changeSubject = new Subject<RegistryChange>();
  private readonly schemaCompiler: SchemaCompiler;
  private readonly nameWarnings: ToolNameWarnings;

  /** One value per change; the server coalesces them into list_changed notifications. */
  readonly changes$: Observable<RegistryChange> = this.changeSubject.asObservable();

  constructor(options: RegistryOptions = {}) {
    const resolved = registryOptions(options);
    this.schemaCompiler = new SchemaCompiler(resolved.toJsonSchema);
    this.nameWarnings = new ToolNameWarnings(resolved.logger);
  }

  /**
   * Registers a tool. Its handler's arguments are inferred from `inputSchema`
   * and its result checked against `outputSchema`, for a Standard Schema or a
   * JSON Schema literal alike.
   */
  registerTool<
    const I extends ToolSchema | undefined = undefined,
    const O extends ToolSchema | undefined = undefined,
    const R extends ToolResultOf<O> = ToolResultOf<O>,
  >(def: TypedToolDef<I, O, R>, options: RegisterToolOptions = {}): this {
    const entry = this.prepareTool(def as ToolDef, options);
    this.refuseTakenTool(entry, options);
    this.addTool(entry);
    this.changeSubject.next('tools');
    return this;
  }

  /** Registers every tool or none: a bad or taken one refuses the whole batch. */
  registerTools(defs: Iterable<ToolDef>, options: RegisterToolOptions = {}): this {
    const entries = [...defs].map((def) => this.prepareTool(def, options));
    const names = new Set<string>();
    for (const entry of entries) {
      if (names.has(entry.def.name)) refuseDuplicate('tool', entry.def.name, 'name');
      names.add(entry.def.name);
      this.refuseTakenTool(entry, options);
    }
    for (const entry of entries) this.addTool(entry);
    if (entries.length > 0) this.changeSubject.next('tools');
    return this;
  }

  /** Gives a registry with no logger of its own a place to warn (createServer does, with its logger). */
  adoptLogger(logger: Logger): void {
    this.nameWarnings.adopt(logger);
  }

  private prepareTool(def: ToolDef, options: RegisterToolOptions): ToolEntry {
    requireName('a tool', def?.name);
    requireFunction('tool', def.name, def.handler, 'handler');
    checkRequiredScopes('requiredScopes', `tool ${def.name}`, def.requiredScopes);
    const schemas = this.schemaCompiler.compileTool(def);
    checkHeaderMarks(def.name, schemas.json.input);
    return { def, derived: options.derived === true, schemas };
  }

  private refuseTakenTool(entry: ToolEntry, options: RegisterToolOptions): void {
    const taken = this.toolEntries.get(entry.def.name);
    // A session's view re-registers its derived tools as it changes; nothing else replaces silently.
    if (taken === undefined || options.replace === true || (taken.derived && entry.derived)) return;
    refuseDuplicate('tool', entry.def.name, 'name');
  }

  private addTool(entry: ToolEntry): void {
    if (!this.toolEntries.has(entry.def.name)) this.nameWarnings.check(entry.def.name);
    this.toolEntries.set(entry.def.name, entry);
  }

  unregisterTool(name: string): boolean {
    const removed = this.toolEntries.delete(name);
    if (removed) this.changeSubject.next('tools');
    return removed;
  }

  tool(name: string): ToolDef | undefined {
    return this.toolEntries.get(name)?.def;
  }

  /** The tool's compiled schema checks (compiled at registration). */
  toolSchemas(name: string): ToolSchemas | undefined {
    return this.toolEntries.get(name)?.schemas;
  }

  tools(): ToolDef[] {
    return [...this.toolEntries.values()].map((entry) => entry.def);
  }

  /** The tools/list entries, in the order of `tools()`; a Standard Schema appears as its JSON Schema. */
  toolListings(): Record<string, unknown>[] {
    return [...this.toolEntries.values()].map((entry) => toolListing(entry.def, entry.schemas.json));
  }

  /** Tools registered without `derived: true`: the ones the boot check covers. */
  staticTools(): ToolDef[] {
    return [...this.toolEntries.values()].filter((entry) => !entry.derived).map((entry) => entry.def);
  }

  registerResource(def: ResourceDef, options: RegisterOptions = {}): this {
    requireName('a resource', def?.uri, 'uri');
    requireName(`resource ${def.uri}`, def.name);
    requireFunction('resource', def.uri, def.read, 'read');
    checkRequiredScopes('requiredScopes', `resource ${def.uri}`, def.requiredScopes);
    if (options.replace !== true && this.resourceDefs.has(def.uri)) refuseDuplicate('resource', def.uri, 'uri');
    this.resourceDefs.set(def.uri, def);
    this.changeSubject.next('resources');
    return this;
  }

  unregisterResource(uri: string): boolean {
    const removed = this.resourceDefs.delete(uri);
    if (removed) this.changeSubject.next('resources');
    return removed;
  }

  resource(uri: string): ResourceDef | undefined {
    return this.resourceDefs.get(uri);
  }

  resources(): ResourceDef[] {
    return [...this.resourceDefs.values()];
  }

  registerResourceTemplate(def: ResourceTemplateDef, options: RegisterOptions = {}): this {
    requireName('a resource template', def?.uriTemplate, 'uriTemplate');
    requireName(`resource template ${def.uriTemplate}`, def.name);
    requireFunction('resource template', def.uriTemplate, def.read, 'read');
    checkRequiredScopes('requiredScopes', `resource template ${def.uriTemplate}`, def.requiredScopes);
    if (options.replace !== true && this.templateEntries.has(def.uriTemplate)) {
      refuseDuplicate('resource template', def.uriTemplate, 'uriTemplate');
    }
    this.templateEntries.set(def.uriTemplate, { def, match: compileUriTemplate(def.uriTemplate) });
    this.changeSubject.next('resources');
    return this;
  }

  unregisterResourceTemplate(uriTemplate: string): boolean {
    const removed = this.templateEntries.delete(uriTemplate);
    if (removed) this.changeSubject.next('resources');
    return removed;
  }

  resourceTemplate(uriTemplate: string): ResourceTemplateDef | undefined {
    return this.templateEntries.get(uriTemplate)?.def;
  }

  resourceTemplates(): ResourceTemplateDef[] {
    return [...this.templateEntries.values()].map((entry) => entry.def);
  }

  /** The first template (in registration order) that matches the URI, with its variables. */
  matchTemplate(uri: string): { def: ResourceTemplateDef; variables: Record<string, string> } | undefined {
    for (const entry of this.templateEntries.values()) {
      const variables = entry.match(uri);
      if (variables) return { def: entry.def, variables };
    }
    return undefined;
  }

  registerPrompt(def: PromptDef, options: RegisterOptions = {}): this {
    requireName('a prompt', def?.name);
    requireFunction('prompt', def.name, def.get, 'get');
    checkRequiredScopes('requiredScopes', `prompt ${def.name}`, def.requiredScopes);
    if (options.replace !== true && this.promptDefs.has(def.name)) refuseDuplicate('prompt', def.name, 'name');
    this.promptDefs.set(def.name, def);
    this.changeSubject.next('prompts');
    return this;
  }

  unregisterPrompt(name: string): boolean {
    const removed = this.promptDefs.delete(name);
    if (removed) this.changeSubject.next('prompts');
    return removed;
  }

  prompt(name: string): PromptDef | undefined {
    return this.promptDefs.get(name);
  }

  prompts(): PromptDef[] {
    return [...this.promptDefs.values()];
  }
}
