/**
 * Extensions (SEP-2133): what a server adds to the protocol beyond the core,
 * under one identifier. rxmcp's own extensions (Skills) are built on exactly
 * this, so a user's extension gets the same spine as a built-in method:
 * route -> the era's table (the extension's methods after the built-in ones)
 * -> a worker under the in-flight bounds and the callback timeout, gated by
 * the read authorizer, through the server's middleware, cancelled by every
 * kind of cancellation, with `call_completed` telemetry.
 *
 * An extension is given to `createServer({ extensions: [...] })`, not to a
 * Registry: what it declares is a property of the server (its capabilities in
 * `initialize` and `server/discover`), and one Registry may back several
 * servers that do not all speak it.
 */
import type { CallbackReturn } from './callback.js';
import type { CallContext } from './context.js';
import { ConfigError } from './errors.js';
import type { Era } from './protocol/modern.js';
import { isPlainObject } from './protocol/jsonrpc.js';
import type { Registry } from './registry.js';

/** An extension method's context: the call's, plus what the client said about this extension. */
export interface ExtensionCallContext extends CallContext {
  /** The extension this method belongs to. */
  readonly extensionId: string;
  /**
   * Whether the client declared this extension: on a modern request its
   * `clientCapabilities.extensions[id]`, on a legacy one what `initialize`
   * advertised. Always true for a method that requires the declaration.
   */
  readonly declared: boolean;
  /**
   * Who is calling, as ownership goes (lib/auth/owner-key.ts): the
   * principal's key when authenticated, else the peer, else the connection.
   * What an extension keeps per caller is keyed by it, and checked against it.
   */
  readonly owner: string;
}

/**
 * One request method an extension adds: run like `resources/read` (a worker
 * under the in-flight bounds and the callback timeout, past the read
 * authorizer, through middleware), on the eras it names, answered -32021 for
 * a client that did not declare the extension unless `requiresDeclaration`
 * is false.
 */
export interface ExtensionMethod {
  /**
   * The method's work: its result object (members only; `resultType`,
   * `_meta` serverInfo and the like are the era's encoding). Throw an
   * `ExtensionError` for a JSON-RPC error of the method's own (e.g. -32602);
   * anything else thrown is the usual -32603 "MCP callback failed".
   */
  readonly handler: (params: Readonly<Record<string, unknown>>, ctx: ExtensionCallContext) => CallbackReturn<Record<string, unknown>>;
  /** The eras that have this method; default both. */
  readonly eras?: readonly Era[] | undefined;
  /**
   * Whether a client must declare the extension to call it; default true.
   * Undeclared: -32021 Missing Required Client Capability naming the
   * extension (`data.requiredCapabilities.extensions[id]`), as 2026-07-28
   * requires of a request that needs a capability the client did not
   * declare; the same answer on the legacy wire (a server-defined code there).
   * Skills sets it false: its spec lets any client call `skills/list`.
   */
  readonly requiresDeclaration?: boolean | undefined;
  /**
   * What the read authorizer is shown as the call's arguments (`args`);
   * default the params without `_meta`.
   */
  readonly gateArgs?: ((params: Readonly<Record<string, unknown>>) => Record<string, unknown>) | undefined;
}

/** What a result-member function sees: the request, never the server's state. */
export interface ResultMemberContext {
  readonly era: Era;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** Whether the client declared this extension (see ExtensionCallContext.declared). */
  readonly declared: boolean;
}

/**
 * A protocol extension a server declares under `capabilities.extensions[id]`
 * (in `initialize` and `server/discover`): its settings, the request methods
 * it adds, the members it adds to other methods' results, and what it
 * registers. Pass it in `createServer({ extensions })`; `defineExtension`
 * types it.
 */
export interface Extension {
  /** The identifier, with its vendor prefix: `io.modelcontextprotocol/skills`, `com.example/notes`. */
  readonly id: string;
  /** Declared as `capabilities.extensions[id]`; default `{}` (supported, no settings). */
  readonly settings?: Readonly<Record<string, unknown>> | undefined;
  /** Request methods this extension adds, by name; a built-in method's name is refused. */
  readonly methods?: Readonly<Record<string, ExtensionMethod>> | undefined;
  /**
   * Members added to a successful result of another method (built-in or
   * not), by method: whatever the function returns is merged in, never over
   * a member the result already has. Return undefined to add nothing.
   */
  readonly resultMembers?:
    | Readonly<Record<string, (result: Readonly<Record<string, unknown>>, ctx: ResultMemberContext) => Record<string, unknown> | undefined>>
    | undefined;
  /**
   * Called once by createServer with the server's Registry, before it
   * serves: an extension that serves resources, tools or prompts registers
   * them here (Skills registers its files as resources).
   */
  readonly setup?: ((registry: Registry) => void) | undefined;
}

/** Identity for a typed extension literal: `defineExtension({ id, methods: {...} })`. */
export function defineExtension<const E extends Extension>(extension: E): E {
  return extension;
}

/** `vendor.prefix/name`: the `_meta` key rule with a mandatory prefix (2026-07-28 versioning). */
const EXTENSION_ID = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

const ERAS: readonly Era[] = ['legacy', 'modern'];

function checkMethod(id: string, name: string, method: unknown, builtIn: (name: string) => boolean): void {
  const where = `extensions: ${id} method ${name}`;
  if (name.length === 0 || name.startsWith('notifications/')) throw new ConfigError('extensions', `${where}: not a request method name`);
  if (builtIn(name)) throw new ConfigError('extensions', `${where}: a built-in method; an extension adds methods, it does not replace them`);
  if (!isPlainObject(method) || typeof method.handler !== 'function') throw new ConfigError('extensions', `${where}: needs a handler function`);
  const eras = method.eras;
  if (eras !== undefined && (!Array.isArray(eras) || eras.length === 0 || !eras.every((era) => ERAS.includes(era as Era)))) {
    throw new ConfigError('extensions', `${where}: eras must be a non-empty array of 'legacy' and 'modern'`);
  }
  if (method.gateArgs !== undefined && typeof method.gateArgs !== 'function') throw new ConfigError('extensions', `${where}: gateArgs must be a function`);
}

/**
 * The `extensions` option validated (a ConfigError naming it): identifiers
 * well formed and distinct, settings plain objects, no method claimed twice
 * or shadowing a built-in one (`builtIn`).
 */
export function resolveExtensions(option: unknown, builtIn: (method: string) => boolean): readonly Extension[] {
  if (option === undefined) return [];
  if (!Array.isArray(option)) throw new ConfigError('extensions', 'extensions must be an array of extensions');
  const ids = new Set<string>();
  const methods = new Map<string, string>();
  for (const extension of option as unknown[]) {
    if (typeof extension !== 'object' || extension === null) throw new ConfigError('extensions', 'every extension must be an object');
    const { id, settings, methods: own, resultMembers, setup } = extension as unknown as Extension;
    if (typeof id !== 'string' || !EXTENSION_ID.test(id)) {
      throw new ConfigError('extensions', `extension id ${JSON.stringify(id)} must be "prefix/name" with a vendor prefix (e.g. com.example/notes)`);
    }
    if (ids.has(id)) throw new ConfigError('extensions', `extension ${id} is given twice`);
    ids.add(id);
    if (settings !== undefined && !isPlainObject(settings)) throw new ConfigError('extensions', `extensions: ${id} settings must be a plain object`);
    if (own !== undefined && (typeof own !== 'object' || own === null)) throw new ConfigError('extensions', `extensions: ${id} methods must be an object`);
    for (const [name, method] of Object.entries(own ?? {})) {
      checkMethod(id, name, method, builtIn);
      const claimed = methods.get(name);
      if (claimed !== undefined) throw new ConfigError('extensions', `extensions: method ${name} is claimed by both ${claimed} and ${id}`);
      methods.set(name, id);
    }
    if (resultMembers !== undefined && (typeof resultMembers !== 'object' || resultMembers === null || !Object.values(resultMembers).every((f) => typeof f === 'function'))) {
      throw new ConfigError('extensions', `extensions: ${id} resultMembers must map method names to functions`);
    }
    if (setup !== undefined && typeof setup !== 'function') throw new ConfigError('extensions', `extensions: ${id} setup must be a function`);
  }
  return Object.freeze([...(option as Extension[])]);
}
