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
 *
 * MCP Apps views and the tools linked to them are registered with
 * `registerUiResource`, `registerAppTool` and `registerApp` (lib/apps/):
 * they become an ordinary resource and ordinary tools.
 *
 * Tools, resources and prompts may also be bound from an Observable of whole
 * sets (`bindTools`, `bindResources`, `bindPrompts`: bind-definitions.ts,
 * keyed-table.ts), so a reactive application's state decides what is
 * offered. A resource's content may be an Observable (`content$`,
 * live-content.ts): its values are announced on `updates$`, which every
 * server given the registry turns into notifications/resources/updated.
 */
import { Subject, type Observable, type Subscription } from 'rxjs';
import { appToolDef, type AppToolDef, type TypedAppToolDef } from './apps/app-tool.js';
import { uiResourceDef, type UiResourceDef } from './apps/ui-resource.js';
import { checkRequiredScopes } from './auth/scope-tokens.js';
import { bindDefinitions, type BindTarget } from './bind-definitions.js';
import { requireFunction, requireName } from './definition-checks.js';
import { ConfigError } from './errors.js';
import { logSafely } from './guarded.js';
import { KeyedTable } from './keyed-table.js';
import { isLogger, stderrLogger, type Logger } from './logger.js';
import type { PromptArgument, PromptDef, TypedPromptDef } from './prompt-def.js';
import { preparePrompt, PROMPT_TABLE } from './prompt-table.js';
import type { ResourceDef, ResourceTemplateDef } from './resource-def.js';
import { prepareResource, resourceTableSpec, type AnyResourceDef, type ResourceEntry } from './resource-table.js';
import { toolListing, type ToolDef, type TypedToolDef } from './tool-def.js';
import { prepareTool, toolTableSpec, type ToolEntry } from './tool-table.js';
import { SchemaCompiler, type JsonSchemaConverter, type ToolSchemas } from './tool-schemas.js';
import type { ToolResultOf, ToolSchema } from './tool-types.js';
import { ToolNameWarnings } from './tool-names.js';
import { compileUriTemplate, type TemplateMatcher } from './uri-template.js';


/** What kind of list a registry change touched. */
export type RegistryChange = 'tools' | 'resources' | 'prompts';

/** Options of `new Registry`: its `logger` and a `toJsonSchema` converter for Standard Schemas that cannot convert themselves. */
export interface RegistryOptions {
  /** Where tool-name warnings and refused bindings go; default the logger of the first server given this registry. */
  logger?: Logger | undefined;
  /**
   * Converts a Standard Schema whose library cannot convert itself (no
   * `~standard.jsonSchema`) to JSON Schema; default none (such a schema is refused).
   */
  toJsonSchema?: JsonSchemaConverter | undefined;
}

/** Options of `registerResource`, `registerResourceTemplate` and `registerPrompt`: `replace` an existing one on purpose. */
export interface RegisterOptions {
  /** Replace what is registered under the same name instead of refusing; default false. */
  readonly replace?: boolean | undefined;
}

/** Options of `registerTool` and `registerTools`: `replace`, and `derived` for a tool that comes and goes with a session. */
export interface RegisterToolOptions extends RegisterOptions {
  readonly derived?: boolean | undefined;
}

/** Options of `bindTools`: `derived` marks the bound tools as a session's. */
export interface BindToolsOptions {
  /** The bound tools come and go with a session's view: left out of the boot check, like `registerTool(def, { derived: true })`. Default false. */
  readonly derived?: boolean;
}

interface TemplateEntry {
  readonly def: ResourceTemplateDef;
  readonly match: TemplateMatcher;
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

/** Tools, resources, resource templates and prompts, registered by calls or bound to Observables of whole sets; registering or unregistering while a server runs sends the matching `list_changed`. */
export class Registry {
  private readonly changeSubject = new Subject<RegistryChange>();
  private readonly updateSubject = new Subject<string>();
  private readonly toolTable: KeyedTable<ToolDef, ToolEntry>;
  private readonly resourceTable: KeyedTable<AnyResourceDef, ResourceEntry>;
  private readonly templateEntries = new Map<string, TemplateEntry>();
  private readonly promptTable: KeyedTable<PromptDef, PromptDef>;
  private readonly schemaCompiler: SchemaCompiler;
  private readonly nameWarnings: ToolNameWarnings;
  private logger: Logger | null;
  private fallbackLogger: Logger | undefined;

  /** One value per change; the server coalesces them into list_changed notifications. */
  readonly changes$: Observable<RegistryChange> = this.changeSubject.asObservable();

  /**
   * The URI of an observable resource, once per value of its `content$`, once
   * the value is what a read answers: every server given this registry sends
   * notifications/resources/updated for it.
   */
  readonly updates$: Observable<string> = this.updateSubject.asObservable();

  constructor(options: RegistryOptions = {}) {
    const resolved = registryOptions(options);
    this.logger = resolved.logger;
    this.schemaCompiler = new SchemaCompiler(resolved.toJsonSchema);
    this.nameWarnings = new ToolNameWarnings(resolved.logger);
    this.toolTable = new KeyedTable(toolTableSpec(this.nameWarnings), () => this.changeSubject.next('tools'));
    this.resourceTable = new KeyedTable(
      resourceTableSpec({
        updated: (uri) => this.updateSubject.next(uri),
        failed: (uri, err) => logSafely(this.currentLogger(), 'error', { err, uri }, 'the content$ of a resource failed: its reads fail from now on'),
      }),
      () => this.changeSubject.next('resources'),
    );
    this.promptTable = new KeyedTable(PROMPT_TABLE, () => this.changeSubject.next('prompts'));
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
    const entry = prepareTool(this.schemaCompiler, def as ToolDef, options.derived === true);
    this.toolTable.register(entry.def.name, entry, entry.def, options.replace === true);
    return this;
  }

  /** Registers every tool or none: a bad or taken one refuses the whole batch. */
  registerTools(defs: Iterable<ToolDef>, options: RegisterToolOptions = {}): this {
    const entries = [...defs].map((def) => prepareTool(this.schemaCompiler, def, options.derived === true));
    this.toolTable.registerAll(
      entries.map((entry) => ({ key: entry.def.name, entry, given: entry.def })),
      options.replace === true,
    );
    return this;
  }

  /**
   * Binds tools to an Observable of whole sets: each value is the full current
   * set, applied by difference (a name that left is unregistered, a new one
   * registered, a changed definition replaces the old one in its place), with
   * list_changed (coalesced as for any change) only when what clients see
   * changed. A name belongs to one holder: a set naming one registered by a
   * call or held by another binding is refused whole (a ConfigError thrown
   * from here for a value the source gives synchronously, logged after).
   * Completing keeps the last set; unsubscribing the returned Subscription
   * removes what it bound; the source failing removes it too. See
   * lib/bind-definitions.ts.
   */
  bindTools(defs$: Observable<Iterable<ToolDef>>, options: BindToolsOptions = {}): Subscription {
    const derived = options.derived === true;
    return bindDefinitions('bindTools', defs$, this.bindTarget(this.toolTable, (def) => prepareTool(this.schemaCompiler, def, derived)));
  }

  /** Gives a registry with no logger of its own a place to warn (createServer does, with its logger). */
  adoptLogger(logger: Logger): void {
    this.logger ??= logger;
    this.nameWarnings.adopt(logger);
  }

  /** Unregisters a tool registered by a call; a bound one is a ConfigError (its binding owns it). */
  unregisterTool(name: string): boolean {
    return this.toolTable.unregister(name);
  }

  /** The tool registered under `name`, if any. */
  tool(name: string): ToolDef | undefined {
    return this.toolTable.get(name)?.def;
  }

  /** The tool's compiled schema checks (compiled at registration). */
  toolSchemas(name: string): ToolSchemas | undefined {
    return this.toolTable.get(name)?.schemas;
  }

  /** Every registered tool, in registration order. */
  tools(): ToolDef[] {
    return this.toolTable.entries().map((entry) => entry.def);
  }

  /** The tools/list entries, in the order of `tools()`; a Standard Schema appears as its JSON Schema. */
  toolListings(): Record<string, unknown>[] {
    return this.toolTable.entries().map((entry) => toolListing(entry.def, entry.schemas.json));
  }

  /** Tools registered without `derived: true`: the ones the boot check covers. */
  staticTools(): ToolDef[] {
    return this.toolTable
      .entries()
      .filter((entry) => !entry.derived)
      .map((entry) => entry.def);
  }

  /**
   * Registers a resource: with a `read` function, or with `content$`, an
   * Observable whose latest value a read answers and each of whose values
   * sends notifications/resources/updated (see ObservableResourceDef).
   */
  registerResource(def: AnyResourceDef, options: RegisterOptions = {}): this {
    const entry = prepareResource(def);
    this.resourceTable.register(def.uri, entry, def, options.replace === true);
    return this;
  }

  /** Binds resources to an Observable of whole sets, as `bindTools` does tools (keyed by URI). */
  bindResources(defs$: Observable<Iterable<AnyResourceDef>>): Subscription {
    return bindDefinitions('bindResources', defs$, this.bindTarget(this.resourceTable, prepareResource));
  }

  /** Unregisters a resource registered by a call (an observable one stops its content$); a bound one is a ConfigError. */
  unregisterResource(uri: string): boolean {
    return this.resourceTable.unregister(uri);
  }

  /** The resource as served (an observable one with a reader of its latest value). */
  resource(uri: string): ResourceDef | undefined {
    return this.resourceTable.get(uri)?.def;
  }

  /** Every registered resource, in registration order. */
  resources(): ResourceDef[] {
    return this.resourceTable.entries().map((entry) => entry.def);
  }

  /**
   * Registers an MCP Apps view (see lib/apps/ui-resource.ts): a `ui://`
   * resource served as `text/html;profile=mcp-app` with its `ui` metadata
   * (CSP domains, permissions, domain, border) as `_meta.ui`.
   */
  registerUiResource(def: UiResourceDef, options: RegisterOptions = {}): this {
    return this.registerResource(uiResourceDef(def), options);
  }

  /**
   * Registers a tool linked to an MCP Apps view (see lib/apps/app-tool.ts):
   * `ui.resourceUri` and `ui.visibility` become its `_meta.ui`; typed like
   * `registerTool`.
   */
  registerAppTool<
    const I extends ToolSchema | undefined = undefined,
    const O extends ToolSchema | undefined = undefined,
    const R extends ToolResultOf<O> = ToolResultOf<O>,
  >(def: TypedAppToolDef<I, O, R>, options: RegisterToolOptions = {}): this {
    return this.registerTools([appToolDef(def as unknown as AppToolDef)], options);
  }

  /**
   * Registers an MCP App: its view and the tools that use it, all or none
   * (a bad or taken one refuses the whole app). Each tool's
   * `ui.resourceUri` defaults to the view's URI; another URI is refused.
   */
  registerApp(view: UiResourceDef, tools: Iterable<AppToolDef>, options: RegisterToolOptions = {}): this {
    const resource = uiResourceDef(view);
    prepareResource(resource);
    const linked = [...tools].map((tool) => {
      const resourceUri = tool?.ui?.resourceUri ?? view.uri;
      if (resourceUri !== view.uri) {
        throw new ConfigError('ui', `app tool ${JSON.stringify(tool.name)} links ${JSON.stringify(resourceUri)}, not the app's view ${JSON.stringify(view.uri)}`);
      }
      return appToolDef({ ...tool, ui: { ...tool.ui, resourceUri } });
    });
    if (options.replace !== true && this.resource(view.uri) !== undefined) refuseDuplicate('resource', view.uri, 'uri');
    // Tools first (all or none); the view, checked above, cannot fail after them.
    this.registerTools(linked, options);
    return this.registerResource(resource, options);
  }

  /** Registers a resource template (an RFC 6570 URI template); a second one under the same template throws a `ConfigError` unless `replace: true`. */
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

  /** Removes the template registered under `uriTemplate`; says whether there was one. */
  unregisterResourceTemplate(uriTemplate: string): boolean {
    const removed = this.templateEntries.delete(uriTemplate);
    if (removed) this.changeSubject.next('resources');
    return removed;
  }

  /** The template registered under `uriTemplate`, if any. */
  resourceTemplate(uriTemplate: string): ResourceTemplateDef | undefined {
    return this.templateEntries.get(uriTemplate)?.def;
  }

  /** Every registered resource template, in registration order. */
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

  /** Registers a prompt; `get` sees each argument declared `required: true` as a string (it is checked present first). */
  registerPrompt<const A extends readonly PromptArgument[] = readonly PromptArgument[]>(typed: TypedPromptDef<A>, options: RegisterOptions = {}): this {
    const def = typed as unknown as PromptDef;
    this.promptTable.register(def?.name, preparePrompt(def), def, options.replace === true);
    return this;
  }

  /** Binds prompts to an Observable of whole sets, as `bindTools` does tools. */
  bindPrompts(defs$: Observable<Iterable<PromptDef>>): Subscription {
    return bindDefinitions('bindPrompts', defs$, this.bindTarget(this.promptTable, preparePrompt));
  }

  /** Unregisters a prompt registered by a call; a bound one is a ConfigError. */
  unregisterPrompt(name: string): boolean {
    return this.promptTable.unregister(name);
  }

  /** The prompt registered under `name`, if any. */
  prompt(name: string): PromptDef | undefined {
    return this.promptTable.get(name);
  }

  /** Every registered prompt, in registration order. */
  prompts(): PromptDef[] {
    return this.promptTable.entries();
  }

  private bindTarget<D, E>(table: KeyedTable<D, E>, prepare: (def: D) => E): BindTarget<D> {
    return {
      apply: (binding, defs) => table.bind(binding, defs, prepare),
      release: (binding) => table.release(binding),
      report: (method, err, what) =>
        logSafely(
          this.currentLogger(),
          'error',
          { err, binding: method },
          what === 'refused'
            ? `${method}: a set was refused and nothing changed; the binding keeps its last set`
            : `${method}: the source failed; what it bound was removed`,
        ),
    };
  }

  /** The registry's logger, else its first server's; before either, rxmcp's default (stderr). */
  private currentLogger(): Logger {
    return this.logger ?? (this.fallbackLogger ??= stderrLogger());
  }
}
