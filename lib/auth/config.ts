/**
 * Validation shared by the authentication building blocks' options: each bad
 * value is a ConfigError naming the option (`jwtBearer.audiences`, ...), and
 * each optional number has a finite default.
 */
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { ConfigError } from '../errors.js';
import { isScheduler } from '../options.js';
import { unknownOptionMessage } from '../did-you-mean.js';

export function requireObject(option: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ConfigError(option, `${option} must be an object`);
  return value as Record<string, unknown>;
}

export function refuseUnknown(option: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new ConfigError(`${option}.${key}`, unknownOptionMessage(key, known, `${option}.`));
  }
}

/** A whole number (milliseconds or a count), at least `min`; `fallback` when absent. */
export function integerOption(option: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(option, `${option} must be an integer of at least ${min}, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function nonEmptyStrings(option: string, value: unknown, { required = true } = {}): readonly string[] {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || (required && value.length === 0) || value.some((item) => typeof item !== 'string' || item.length === 0)) {
    throw new ConfigError(option, `${option} must be ${required ? 'a non-empty' : 'an'} array of non-empty strings`);
  }
  return Object.freeze([...new Set(value as string[])]);
}

export function optionalString(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length === 0) throw new ConfigError(option, `${option} must be a non-empty string`);
  return value;
}

export function schedulerOption(option: string, value: unknown): SchedulerLike {
  if (value === undefined) return asyncScheduler;
  if (!isScheduler(value)) throw new ConfigError(option, `${option} must be an RxJS SchedulerLike (now() and schedule())`);
  return value;
}

/** Which claims a principal keeps: every one (`'all'`, the default) or the names listed. */
export function claimSelection(option: string, value: unknown): 'all' | ReadonlySet<string> {
  if (value === undefined || value === 'all') return 'all';
  return new Set(nonEmptyStrings(option, value, { required: false }));
}

export function selectClaims(claims: Record<string, unknown>, selection: 'all' | ReadonlySet<string>): Record<string, unknown> {
  if (selection === 'all') return claims;
  const chosen: Record<string, unknown> = {};
  for (const name of selection) if (Object.hasOwn(claims, name)) chosen[name] = claims[name];
  return chosen;
}

/** Scopes from a claim: a space-delimited string (RFC 9068 `scope`) or an array of strings (`scp`). */
export function scopesOf(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((scope) => scope.length > 0);
  if (Array.isArray(value)) return value.filter((scope): scope is string => typeof scope === 'string' && scope.length > 0);
  return [];
}

/** An `aud` claim as a list. */
export function audienceOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((aud): aud is string => typeof aud === 'string');
  return [];
}

export function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
