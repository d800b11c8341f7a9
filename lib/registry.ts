/**
 * The registry of what a server offers: tools, resources, resource templates
 * and prompts. A tool registered with `{ derived: true }` comes and goes with
 * a session's view and is left out of the boot check; every other tool is
 * static. Changes are announced on `changes$` so the server can tell clients.
 */
import { Subject, type Observable } from 'rxjs';
import type { PromptDef } from './prompt-def.js';
import type { ResourceDef, ResourceTemplateDef } from './resource-def.js';
import type { ToolDef } from './tool-def.js';
import { SchemaCompiler, type ToolSchemas } from './tool-schemas.js';
import { compileUriTemplate, type TemplateMatcher } from './uri-template.js';

export type RegistryChange = 'tools' | 'resources' | 'prompts';

export interface RegisterToolOptions {
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

export class Registry {
  private readonly toolEntries = new Map<string, ToolEntry>();
  private readonly resourceDefs = new Map<string, ResourceDef>();
  private readonly templateEntries = new Map<string, TemplateEntry>();
  private readonly promptDefs = new Map<string, PromptDef>();
  private readonly changeSubject = new Subject<RegistryChange>();
  private readonly schemaCompiler = new SchemaCompiler();

  /** One value per change; the server coalesces them into list_changed notifications. */
  readonly changes$: Observable<RegistryChange> = this.changeSubject.asObservable();

  registerTool(def: ToolDef, options: RegisterToolOptions = {}): this {
    requireName('a tool', def?.name);
    requireFunction('tool', def.name, def.handler, 'handler');
    const schemas = this.schemaCompiler.compileTool(def);
    this.toolEntries.set(def.name, { def, derived: options.derived === true, schemas });
    this.changeSubject.next('tools');
    return this;
  }

  registerTools(defs: Iterable<ToolDef>, options: RegisterToolOptions = {}): this {
    for (const def of defs) this.registerTool(def, options);
    return this;
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

  /** Tools registered without `derived: true`: the ones the boot check covers. */
  staticTools(): ToolDef[] {
    return [...this.toolEntries.values()].filter((entry) => !entry.derived).map((entry) => entry.def);
  }

  registerResource(def: ResourceDef): this {
    requireName('a resource', def?.uri, 'uri');
    requireName(`resource ${def.uri}`, def.name);
    requireFunction('resource', def.uri, def.read, 'read');
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

  registerResourceTemplate(def: ResourceTemplateDef): this {
    requireName('a resource template', def?.uriTemplate, 'uriTemplate');
    requireName(`resource template ${def.uriTemplate}`, def.name);
    requireFunction('resource template', def.uriTemplate, def.read, 'read');
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

  registerPrompt(def: PromptDef): this {
    requireName('a prompt', def?.name);
    requireFunction('prompt', def.name, def.get, 'get');
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
