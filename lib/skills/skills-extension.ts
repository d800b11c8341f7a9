/**
 * skillsExtension: the Skills extension (SEP-2640,
 * `io.modelcontextprotocol/skills`) over a SkillCatalog, built on the
 * extension API (lib/extension.ts) like any user's extension:
 *
 * - declared as `capabilities.extensions["io.modelcontextprotocol/skills"]`
 *   with `directoryRead: true` (unless turned off); the `resources`
 *   capability it depends on is always declared;
 * - `skills/list` (paged, entries atomic) and `skills/get` (-32602 for a URI
 *   that is not a served skill), on both eras; on 2026-07-28 both results
 *   carry `ttlMs` and `cacheScope` (the `cacheHint` option, default
 *   `{ ttlMs: 0, cacheScope: 'private' }`); no client declaration is needed,
 *   the SEP lets any client that saw the server's declaration call them;
 * - `resources/directory/read` on every directory of the namespace (-32602
 *   for anything else, a file included);
 * - every file registered as a resource (`setup`), so `resources/read`
 *   serves it on the usual read path: the SKILL.md with the frontmatter's
 *   name and description and `text/markdown`.
 *
 * Authorization is that of every read: each method passes the read
 * authorizer (its `args` are the params: `{ uri }`, `{ cursor }`), and a
 * skill's `requiredScopes` (with those of any skill enclosing it) hide it
 * from a principal without them: not listed, not in a directory listing,
 * -32090 `insufficient_scope` from skills/get and resources/read.
 */
import { insufficientScopeDetail, scopesAllow } from '../auth/target-scopes.js';
import type { CacheHint } from '../cache-hints.js';
import { AUTHORIZATION_REQUIRED, ConfigError, ExtensionError, INVALID_PARAMS } from '../errors.js';
import type { Extension, ExtensionCallContext, ExtensionMethod } from '../extension.js';
import type { Registry } from '../registry.js';
import { pageOf } from './skill-pages.js';
import { SKILLS_EXTENSION_ID, type SkillCatalog, type SkillFile } from './skill-catalog.js';

/** How `skillsExtension` serves its catalog: the directory read, the page size of `skills/list`, the cache hint. */
export interface SkillsOptions {
  /** Serve `resources/directory/read` and declare `directoryRead: true`; default true. */
  readonly directoryRead?: boolean | undefined;
  /** Entries per skills/list page and children per directory page; default 100. */
  readonly pageSize?: number | undefined;
  /**
   * `ttlMs` and `cacheScope` of skills/list, skills/get and directory reads
   * on 2026-07-28; default `{ ttlMs: 0, cacheScope: 'private' }`. `private`
   * whatever is set when a skill has requiredScopes or the caller a
   * principal; say `public` only when no read authorizer decides per caller
   * (the extension cannot see the authorizer's reasons).
   */
  readonly cacheHint?: CacheHint | undefined;
}

function denied(method: string, required: readonly string[]): ExtensionError {
  return new ExtensionError(AUTHORIZATION_REQUIRED, `authorization_required: ${method}`, {
    error: 'authorization_required',
    method,
    detail: insufficientScopeDetail(required),
  });
}

function stringParam(params: Readonly<Record<string, unknown>>, method: string): string {
  const uri = params.uri;
  if (typeof uri !== 'string') throw new ExtensionError(INVALID_PARAMS, `${method} requires a string uri`);
  return uri;
}

/** The Skills extension (SEP-2640) over `catalog`: `skills/list`, `skills/get` and the directory read, gated by the read authorizer and each skill's scopes. */
export function skillsExtension(catalog: SkillCatalog, options: SkillsOptions = {}): Extension {
  const directoryRead = options.directoryRead ?? true;
  const pageSize = options.pageSize ?? 100;
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new ConfigError('extensions', `skills pageSize must be a positive integer, got ${String(pageSize)}`);
  const hint: CacheHint = options.cacheHint ?? { ttlMs: 0, cacheScope: 'private' };
  const anyScoped = catalog.allFiles().some((file) => file.requiredScopes.length > 0);

  const readable = (file: SkillFile | undefined, ctx: ExtensionCallContext): boolean =>
    file !== undefined && scopesAllow(ctx.principal, file.requiredScopes);
  /** The cache hints on a modern result: private whenever what is answered depends on who asks. */
  const hinted = (result: Record<string, unknown>, ctx: ExtensionCallContext): Record<string, unknown> => {
    if (ctx.era !== 'modern') return result;
    const cacheScope = anyScoped || ctx.principal !== undefined ? 'private' : hint.cacheScope;
    return { ...result, ttlMs: hint.ttlMs, cacheScope };
  };
  const cursorOf = (params: Readonly<Record<string, unknown>>) => params.cursor;
  const registeredIn = new WeakSet<Registry>();

  const methods: Record<string, ExtensionMethod> = {
    'skills/list': {
      requiresDeclaration: false,
      handler: (params, ctx) => {
        const visible = catalog.entries.filter((entry) => readable(catalog.file(entry.uri), ctx));
        const page = pageOf(visible, cursorOf(params), pageSize);
        if (page === undefined) throw new ExtensionError(INVALID_PARAMS, 'Invalid cursor', { cursor: params.cursor });
        const result: Record<string, unknown> = { skills: page.items };
        if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
        return hinted(result, ctx);
      },
    },
    'skills/get': {
      requiresDeclaration: false,
      handler: (params, ctx) => {
        const uri = stringParam(params, 'skills/get');
        const skill = catalog.skill(uri);
        if (skill === undefined) throw new ExtensionError(INVALID_PARAMS, `Skill not found: ${uri}`, { uri });
        const file = catalog.file(uri)!;
        if (!readable(file, ctx)) throw denied('skills/get', file.requiredScopes);
        return hinted({ skill: skill.entry }, ctx);
      },
    },
  };
  if (directoryRead) {
    methods['resources/directory/read'] = {
      requiresDeclaration: false,
      handler: (params, ctx) => {
        const uri = stringParam(params, 'resources/directory/read');
        const children = catalog.directory(uri);
        // Only what the caller may read is shown; a directory with nothing readable in it is not there for them.
        const open = !anyScoped || ctx.principal === undefined;
        const visible = open
          ? children
          : children?.filter((child) => readable(catalog.file(child.uri), ctx) || catalog.allFiles().some((f) => f.uri.startsWith(`${child.uri}/`) && readable(f, ctx)));
        if (visible === undefined || (visible.length === 0 && children!.length > 0)) {
          throw new ExtensionError(INVALID_PARAMS, `Not a directory: ${uri}`, { uri });
        }
        const page = pageOf(visible, cursorOf(params), pageSize);
        if (page === undefined) throw new ExtensionError(INVALID_PARAMS, 'Invalid cursor', { cursor: params.cursor });
        const result: Record<string, unknown> = { resources: page.items };
        if (page.nextCursor !== undefined) result.nextCursor = page.nextCursor;
        return hinted(result, ctx);
      },
    };
  }

  return {
    id: SKILLS_EXTENSION_ID,
    settings: directoryRead ? { directoryRead: true } : {},
    methods,
    setup: (registry: Registry) => {
      // One Registry may back several servers speaking this extension: its files are registered once.
      if (registeredIn.has(registry)) return;
      registeredIn.add(registry);
      for (const file of catalog.allFiles()) {
        const entry = catalog.skill(file.uri)?.entry;
        const name = entry?.frontmatter.name ?? file.path.slice(file.path.lastIndexOf('/') + 1);
        const contents = file.text !== undefined ? { uri: file.uri, mimeType: file.mimeType, text: file.text } : { uri: file.uri, mimeType: file.mimeType, blob: Buffer.from(file.bytes).toString('base64') };
        registry.registerResource({
          uri: file.uri,
          name,
          ...(entry !== undefined ? { description: entry.frontmatter.description } : {}),
          mimeType: file.mimeType,
          size: file.bytes.byteLength,
          ...(file.requiredScopes.length > 0 ? { requiredScopes: file.requiredScopes } : {}),
          read: () => ({ contents: [contents] }),
        });
      }
    },
  };
}
