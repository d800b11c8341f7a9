/**
 * Checks for option values shared by the server, its transports and the
 * built-in middleware: a bad value is a ConfigError naming the option
 * (`maxInFlight`, `rateLimit.perCaller.calls`), thrown before anything starts.
 */
import { ConfigError } from './errors.js';

export function positiveIntegerOption(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(option, `${option} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function nonNegativeIntegerOption(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError(option, `${option} must be a non-negative integer, got ${JSON.stringify(value)}`);
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
