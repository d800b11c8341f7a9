/**
 * ExtensionTable: one server's extensions (the `extensions` option) as route
 * and the capability answers read them. Built once by the server: the
 * methods per era (looked up after the era's built-in table, which an
 * extension may not shadow), the capabilities with `extensions` declared,
 * and the result members each method's results gain.
 *
 * With no extension every answer is the built-in one, the very same objects:
 * a server that speaks none pays nothing for the table.
 */
import type { Extension } from '../../lib/extension.js';
import { ConfigError } from '../../lib/errors.js';
import type { Era } from '../../lib/protocol/modern.js';
import type { ExtensionResultMember, MethodHandler, ServerExtensions } from '../state/server-core.js';
import { extensionMethod } from './extension-method.js';

export class ExtensionTable implements ServerExtensions {
  /** The identifiers this server declares. */
  readonly ids: ReadonlySet<string>;
  private readonly methods: Readonly<Record<Era, ReadonlyMap<string, MethodHandler>>>;
  readonly resultMembers: ReadonlyMap<string, readonly ExtensionResultMember[]> | null;
  private readonly declared: Readonly<Record<string, unknown>> | undefined;

  constructor(extensions: readonly Extension[], builtIn: (method: string) => boolean) {
    this.ids = new Set(extensions.map((e) => e.id));
    const legacy = new Map<string, MethodHandler>();
    const modern = new Map<string, MethodHandler>();
    const members = new Map<string, ExtensionResultMember[]>();
    for (const extension of extensions) {
      for (const [name, method] of Object.entries(extension.methods ?? {})) {
        if (builtIn(name)) throw new ConfigError('extensions', `extensions: ${extension.id} method ${name}: a built-in method; an extension adds methods, it does not replace them`);
        const handler = extensionMethod(extension.id, method);
        const eras = method.eras ?? ['legacy', 'modern'];
        if (eras.includes('legacy')) legacy.set(name, handler);
        if (eras.includes('modern')) modern.set(name, handler);
      }
      for (const [method, add] of Object.entries(extension.resultMembers ?? {})) {
        const list = members.get(method) ?? [];
        list.push({ id: extension.id, add });
        members.set(method, list);
      }
    }
    this.methods = { legacy, modern };
    this.resultMembers = members.size === 0 ? null : members;
    this.declared =
      extensions.length === 0 ? undefined : Object.freeze(Object.fromEntries(extensions.map((e) => [e.id, Object.freeze({ ...(e.settings ?? {}) })])));
  }

  /** An extension's method on this era, or undefined (the caller answers -32601). */
  method(era: Era, name: string): MethodHandler | undefined {
    return this.methods[era].get(name);
  }

  /** Whether a modern request for `name` has an extension method to go to (the HTTP era classifier asks). */
  hasModern(name: string): boolean {
    return this.methods.modern.has(name);
  }

  /** The server's capabilities with `extensions` declared; `base` itself when there is none. */
  capabilities<T extends object>(base: T): T {
    return this.declared === undefined ? base : ({ ...base, extensions: this.declared } as T);
  }
}
