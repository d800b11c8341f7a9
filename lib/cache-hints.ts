/**
 * Cache hints of the modern era (2026-07-28 caching): every complete result
 * of the six cacheable methods carries `ttlMs` (how long the client may
 * treat it as fresh) and `cacheScope` (`public`: the same for every caller;
 * `private`: reusable only in the same authorization context).
 *
 * The `cacheHints` option sets them, for all six or per method. The default
 * is the safe one, `{ ttlMs: 0, cacheScope: 'private' }`: stale at once,
 * never shared. Whatever is configured, a result the tool or read
 * authorizer decided for this caller is `private` (see modern/encode.ts).
 */
import { ConfigError } from './errors.js';
import { isPlainObject } from './protocol/jsonrpc.js';

/** Whether a modern result may be cached for everyone or only for this caller. */
export type CacheScope = 'public' | 'private';

/** The modern methods whose results carry cache hints. */
export const CACHEABLE_METHODS = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
] as const;

/** One of `CACHEABLE_METHODS`. */
export type CacheableMethod = (typeof CACHEABLE_METHODS)[number];

/** The `ttlMs` and `cacheScope` of a cacheable modern result. */
export interface CacheHint {
  /** Milliseconds the result may be treated as fresh; a non-negative integer. */
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** The `cacheHints` server option: a default hint and, under `methods`, one per method. */
export interface CacheHintsOption {
  /** For every cacheable method; default 0. */
  readonly ttlMs?: number | undefined;
  /** For every cacheable method; default 'private'. */
  readonly cacheScope?: CacheScope | undefined;
  /** Per method, over the two above. */
  readonly methods?: Partial<Record<CacheableMethod, Partial<CacheHint>>> | undefined;
}

export type ResolvedCacheHints = Readonly<Record<CacheableMethod, CacheHint>>;

export const DEFAULT_CACHE_HINT: CacheHint = Object.freeze({ ttlMs: 0, cacheScope: 'private' });

export function isCacheableMethod(method: string): method is CacheableMethod {
  return (CACHEABLE_METHODS as readonly string[]).includes(method);
}

function hintPart(where: string, value: unknown, fallback: CacheHint): CacheHint {
  if (!isPlainObject(value)) throw new ConfigError('cacheHints', `${where} must be an object`);
  for (const key of Object.keys(value)) {
    if (key !== 'ttlMs' && key !== 'cacheScope' && !(where === 'cacheHints' && key === 'methods')) {
      throw new ConfigError('cacheHints', `${where} has an unknown key ${key}`);
    }
  }
  const { ttlMs = fallback.ttlMs, cacheScope = fallback.cacheScope } = value as Partial<CacheHint>;
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    throw new ConfigError('cacheHints', `${where}.ttlMs must be a non-negative integer, got ${JSON.stringify(ttlMs)}`);
  }
  if (cacheScope !== 'public' && cacheScope !== 'private') {
    throw new ConfigError('cacheHints', `${where}.cacheScope must be "public" or "private", got ${JSON.stringify(cacheScope)}`);
  }
  return Object.freeze({ ttlMs, cacheScope });
}

/** The option validated into one hint per cacheable method (a ConfigError naming cacheHints on a bad value). */
export function resolveCacheHints(option: unknown): ResolvedCacheHints {
  const base = option === undefined ? DEFAULT_CACHE_HINT : hintPart('cacheHints', option, DEFAULT_CACHE_HINT);
  const methods = option === undefined ? undefined : (option as CacheHintsOption).methods;
  if (methods !== undefined && !isPlainObject(methods)) throw new ConfigError('cacheHints', 'cacheHints.methods must be an object');
  for (const method of Object.keys(methods ?? {})) {
    if (!isCacheableMethod(method)) {
      throw new ConfigError('cacheHints', `cacheHints.methods.${method}: not a cacheable method (${CACHEABLE_METHODS.join(', ')})`);
    }
  }
  const resolved = {} as Record<CacheableMethod, CacheHint>;
  for (const method of CACHEABLE_METHODS) {
    const own = methods?.[method];
    resolved[method] = own === undefined ? base : hintPart(`cacheHints.methods.${method}`, own, base);
  }
  return Object.freeze(resolved);
}
