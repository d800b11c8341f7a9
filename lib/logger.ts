/**
 * The logging seam: anything with pino's level methods. The library is
 * silent by default; the CLI logs to stderr because stdout is stdio's wire.
 */
import { pino } from 'pino';

export interface Logger {
  debug(obj: unknown, msg?: string): void;
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

export function isLogger(value: unknown): value is Logger {
  const l = value as Logger;
  return (
    typeof value === 'object' &&
    value !== null &&
    ['debug', 'info', 'warn', 'error'].every((m) => typeof (l as unknown as Record<string, unknown>)[m] === 'function')
  );
}
