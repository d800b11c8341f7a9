/**
 * The Redis approval ledger's one clock, and what the processes' own clocks
 * cost it. Expiry is decided on Redis TIME inside the scripts; a ticket's
 * times are handed to the issuing process translated to its clock, and
 * sealed into the requestState there. Another process reads that sealed
 * expiry on its own clock, which may be off: so it is only a bound, refused
 * `clockSkewMs` past it (streams/approval-ledger.ts), and the ledger keeps
 * answering `expired` for a ticket past its expiry for as long as such a
 * state can still open somewhere (`graceMs`), so a late retry is the
 * "timed out" deny on every process, never a fresh question.
 */
import { ConfigError } from '../../lib/errors.js';
import type { LedgerTail } from './scripts/ledger-lua.js';

/** Default `clockSkewMs`: processes synchronised by NTP are milliseconds apart; this leaves room for a badly kept one. */
export const DEFAULT_CLOCK_SKEW_MS = 5000;
const MAX_CLOCK_SKEW_MS = 600_000;

export function resolveClockSkewMs(value: unknown): number {
  if (value === undefined) return DEFAULT_CLOCK_SKEW_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > MAX_CLOCK_SKEW_MS) {
    throw new ConfigError('clockSkewMs', `clockSkewMs must be an integer from 0 to ${MAX_CLOCK_SKEW_MS}, got ${JSON.stringify(value)}`);
  }
  return value;
}

export interface LedgerClockInput {
  readonly ttlMs: number;
  readonly maxTotal: number;
  readonly clockSkewMs: number;
  /** The longest one ledger call waits for Redis. */
  readonly timeoutMs: number;
}

/**
 * The scripts' ARGV tail.
 *
 * graceMs: a ticket expiring at E (Redis TIME) is sealed on process i as
 * E + d_i (d_i: i's clock minus Redis's; plus at most timeoutMs, the admit's
 * reply time, since the translation keeps durations from the reply). Process
 * j opens it while its clock, r + d_j, is below that plus clockSkewMs (A):
 * while r < E + A + (d_i - d_j) + timeoutMs <= E + 2A + timeoutMs when no two
 * processes are more than A apart; its take reaches Redis within timeoutMs
 * more (a later one has already failed closed). So 2A + 2 x timeoutMs.
 *
 * lapsedCap: an id lapses only by expiring, and an expiring ticket held its
 * slot for the whole ttl before: the tickets expiring within any ttl-long
 * window were all held at its start, at most maxTotal. A lapse lasts graceMs,
 * which spans at most ceil(graceMs / ttl) + 1 such windows.
 *
 * keepMs: every key outlives its last write by two ttls and the grace, plus a
 * minute, so an abandoned deployment's keys go, and no live one's do.
 */
export function ledgerTail(input: LedgerClockInput): LedgerTail {
  const graceMs = 2 * input.clockSkewMs + 2 * input.timeoutMs;
  return {
    graceMs,
    lapsedCap: input.maxTotal * (Math.ceil(graceMs / input.ttlMs) + 1),
    keepMs: 2 * input.ttlMs + graceMs + 60_000,
  };
}
