/**
 * rateLimit: a budget of calls per caller (the principal once there is one,
 * else the peer). Each caller has a bucket of `calls` tokens, refilled
 * continuously at `calls` per `perMs`: a burst of `calls`, then that rate.
 * A call that finds the bucket empty is refused with `rate_limited` (an
 * isError result `Error: rate_limited` for tools/call, -32603 with
 * `data.error: "rate_limited"` for the read methods) and its handler never
 * runs; a refused call takes no token.
 *
 * The token is taken when the call reaches this stage: a call answered by
 * a stage before it (a cache hit) costs nothing. Time is the server's
 * scheduler. State is bounded: a caller whose bucket has refilled is
 * forgotten, and past `maxCallers` the least recently seen caller is
 * forgotten first (it starts again with a full bucket).
 */
import { defer, of } from 'rxjs';
import { ConfigError } from '../errors.js';
import { callerKey } from './caller-key.js';
import { objectOption, positiveIntegerOption } from '../option-checks.js';
import type { Middleware } from './types.js';

/** Options of `rateLimit`. */
export interface RateLimitOptions {
  /** The budget of one caller: `calls` per `perMs` (default 60 per 60 000 ms). */
  perCaller?: { calls?: number; perMs?: number } | undefined;
  /** Callers remembered at once (default 10 000). */
  maxCallers?: number | undefined;
}

/**
 * A bucket counts in units of 1/perMs of a token, so that with whole
 * milliseconds the arithmetic is exact: a millisecond adds `calls` units, a
 * call costs `perMs`, a full bucket holds `calls * perMs`.
 */
interface Bucket {
  units: number;
  at: number;
}

/** Every caller's bucket, least recently seen first (a Map keeps insertion order; a use re-inserts). */
class Buckets {
  private readonly byCaller = new Map<string, Bucket>();
  private readonly full: number;

  constructor(
    private readonly calls: number,
    private readonly perMs: number,
    private readonly maxCallers: number,
  ) {
    this.full = calls * perMs;
  }

  /** Takes a token for `caller` at `now`; false when its bucket is empty. */
  take(caller: string, now: number): boolean {
    this.forgetRefilled(now);
    const bucket = this.byCaller.get(caller);
    let units = this.full;
    if (bucket !== undefined) {
      units = Math.min(this.full, bucket.units + (now - bucket.at) * this.calls);
      this.byCaller.delete(caller);
    }
    const allowed = units >= this.perMs;
    this.byCaller.set(caller, { units: allowed ? units - this.perMs : units, at: now });
    if (this.byCaller.size > this.maxCallers) this.byCaller.delete(this.byCaller.keys().next().value as string);
    return allowed;
  }

  /** A bucket untouched for perMs is full again, the same as no bucket. */
  private forgetRefilled(now: number): void {
    for (const [caller, bucket] of this.byCaller) {
      if (now - bucket.at < this.perMs) return;
      this.byCaller.delete(caller);
    }
  }
}

/** Middleware that gives each caller a token bucket (`perCaller.calls` per `perCaller.perMs`); a call finding it empty answers `rate_limited` without running. */
export function rateLimit(options: RateLimitOptions = {}): Middleware {
  const perCaller = objectOption('rateLimit.perCaller', options.perCaller);
  const calls = positiveIntegerOption('rateLimit.perCaller.calls', perCaller.calls, 60);
  const perMs = positiveIntegerOption('rateLimit.perCaller.perMs', perCaller.perMs, 60_000);
  const maxCallers = positiveIntegerOption('rateLimit.maxCallers', options.maxCallers, 10_000);
  if (!Number.isSafeInteger(calls * perMs)) {
    throw new ConfigError('rateLimit.perCaller', 'rateLimit.perCaller: calls * perMs must be a safe integer');
  }
  return ({ scheduler, logger }) => {
    const buckets = new Buckets(calls, perMs, maxCallers);
    return (call) => (reply$) =>
      defer(() => {
        if (buckets.take(callerKey(call), scheduler.now())) return reply$;
        logger.debug({ connId: call.connId, peer: call.peer, method: call.method, name: call.name }, 'call rate limited');
        return of(call.refuse('rate_limited'));
      });
  };
}
