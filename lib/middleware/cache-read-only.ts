/**
 * cacheReadOnly: a tools/call of a tool annotated `readOnlyHint: true` is
 * answered from a cache when the same call succeeded within `ttlMs`, and the
 * handler does not run. The key is the tool's name, the arguments as
 * canonical JSON (key order does not matter) and, unless
 * `shareAcrossCallers` is set, the caller (the principal once there is one,
 * else the peer): by default one caller never gets a result computed for
 * another, which matters whenever a tool's answer depends on who asks.
 *
 * Only successful results are kept (never isError results or errors), as
 * JSON, so a hit is a fresh copy and no later stage can change what the
 * cache holds; the entry is what this stage saw, so stages after it in the
 * list (redaction, say) have already run. Concurrent misses each run the
 * handler. Bounded: at most `maxEntries` entries (the oldest goes first) of
 * at most `maxEntryBytes` each (key and result; a larger result is not
 * kept). An entry expires `ttlMs` after it was stored, on the server's
 * scheduler: expired entries are dropped as the cache is used, so it holds
 * no timer and never keeps the process alive.
 */
import { defer, identity, of, tap } from 'rxjs';
import { callerKey } from './caller-key.js';
import { canonicalJson } from '../canonical-json.js';
import { booleanOption, positiveIntegerOption } from '../option-checks.js';
import type { Middleware } from './types.js';

/** Options of `cacheReadOnly`. */
export interface CacheReadOnlyOptions {
  /** How long a result is served from the cache (default 60 000 ms). */
  ttlMs?: number | undefined;
  /** Entries kept at once (default 1000); the oldest is dropped first. */
  maxEntries?: number | undefined;
  /** Largest entry kept, key and result JSON in UTF-8 (default 65 536). */
  maxEntryBytes?: number | undefined;
  /** Share entries between callers (default false: each caller has its own). */
  shareAcrossCallers?: boolean | undefined;
}

interface Entry {
  readonly json: string;
  readonly expiresAt: number;
}

/** Entries in the order they were stored, which is the order they expire (one ttl for all). */
class ExpiringEntries {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string, now: number): string | undefined {
    this.dropExpired(now);
    return this.entries.get(key)?.json;
  }

  set(key: string, json: string, now: number): void {
    this.dropExpired(now);
    this.entries.delete(key);
    this.entries.set(key, { json, expiresAt: now + this.ttlMs });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  private dropExpired(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt > now) return;
      this.entries.delete(key);
    }
  }
}

/** A result that cannot be serialised (the encoder answers it with an error) is not kept. */
function jsonOf(result: Record<string, unknown>): string | undefined {
  try {
    return JSON.stringify(result);
  } catch {
    return undefined;
  }
}

/** Middleware that answers a `tools/call` of a tool annotated `readOnlyHint: true` from a cache of its successful results, per caller, for `ttlMs` on the server's clock. */
export function cacheReadOnly(options: CacheReadOnlyOptions = {}): Middleware {
  const ttlMs = positiveIntegerOption('cacheReadOnly.ttlMs', options.ttlMs, 60_000);
  const maxEntries = positiveIntegerOption('cacheReadOnly.maxEntries', options.maxEntries, 1000);
  const maxEntryBytes = positiveIntegerOption('cacheReadOnly.maxEntryBytes', options.maxEntryBytes, 65_536);
  const shared = booleanOption('cacheReadOnly.shareAcrossCallers', options.shareAcrossCallers, false);
  return ({ scheduler }) => {
    const cache = new ExpiringEntries(ttlMs, maxEntries);
    return (call) => {
      if (call.method !== 'tools/call' || call.tool?.annotations?.readOnlyHint !== true) return identity;
      return (reply$) =>
        defer(() => {
          const key = canonicalJson([shared ? null : callerKey(call), call.name, call.arguments ?? {}]);
          // Arguments that are not plain JSON data (only a direct caller can pass them) are not cached.
          if (key === null) return reply$;
          const hit = cache.get(key, scheduler.now());
          if (hit !== undefined) return of({ result: JSON.parse(hit) as Record<string, unknown> });
          return reply$.pipe(
            tap((reply) => {
              if (reply.error !== undefined || reply.result.isError === true) return;
              const json = jsonOf(reply.result);
              if (json === undefined || Buffer.byteLength(key, 'utf8') + Buffer.byteLength(json, 'utf8') > maxEntryBytes) return;
              cache.set(key, json, scheduler.now());
            }),
          );
        });
    };
  };
}
