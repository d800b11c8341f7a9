/**
 * Checks for the built-in middleware's own options: a bad value is a
 * ConfigError naming the option (`rateLimit.perCaller.calls`), thrown where
 * the middleware is built, before any server starts.
 */
import { ConfigError } from '../errors.js';

export function positiveIntegerOption(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(option, `${option} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function booleanOption(option: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw new ConfigError(option, `${option} must be a boolean`);
  return value;
}

export function objectOption(option: string, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(option, `${option} must be an object`);
  }
  return value as Record<string, unknown>;
}
