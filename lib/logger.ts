/**
 * The logging seam: anything with pino's level methods. The default is pino
 * writing JSON lines to stderr (stdout is the stdio transport's wire) at
 * `warn`, or at the level `RXMCP_LOG_LEVEL` names, so a crash is seen
 * without any setup. It is made on the first line written: a server that
 * never logs never builds one.
 */
import { pino } from 'pino';

/** What rxmcp logs through: pino's `debug`, `info`, `warn` and `error` (a pino logger is one). What it throws is swallowed. */
export interface Logger {
  /** Logs at debug: fields, then a message (pino's order). */
  debug(obj: unknown, msg?: string): void;
  /** Logs at info. */
  info(obj: unknown, msg?: string): void;
  /** Logs at warn. */
  warn(obj: unknown, msg?: string): void;
  /** Logs at error. */
  error(obj: unknown, msg?: string): void;
}

/** pino's level names and their values. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity } as const;
export type LogLevelName = keyof typeof LEVELS;

export const DEFAULT_LOG_LEVEL: LogLevelName = 'warn';

function isLevelName(value: unknown): value is LogLevelName {
  return typeof value === 'string' && Object.hasOwn(LEVELS, value);
}

/** RXMCP_LOG_LEVEL when it names a pino level, else `warn`. Read from the global, so lib/ imports no `process`. */
export function logLevelFromEnvironment(): LogLevelName {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  const named = env?.RXMCP_LOG_LEVEL?.trim().toLowerCase();
  return isLevelName(named) ? named : DEFAULT_LOG_LEVEL;
}

class StderrLogger implements Logger {
  readonly #level: LogLevelName;
  readonly #threshold: number;
  #sink: Logger | undefined;

  constructor(level: LogLevelName) {
    this.#level = level;
    this.#threshold = LEVELS[level];
  }

  debug(obj: unknown, msg?: string): void {
    if (this.#threshold <= LEVELS.debug) this.#pino().debug(obj, msg);
  }

  info(obj: unknown, msg?: string): void {
    if (this.#threshold <= LEVELS.info) this.#pino().info(obj, msg);
  }

  warn(obj: unknown, msg?: string): void {
    if (this.#threshold <= LEVELS.warn) this.#pino().warn(obj, msg);
  }

  error(obj: unknown, msg?: string): void {
    if (this.#threshold <= LEVELS.error) this.#pino().error(obj, msg);
  }

  // Synchronous writes: a crash logged just before the process exits is not lost.
  #pino(): Logger {
    return (this.#sink ??= pino({ name: 'rxmcp', level: this.#level }, pino.destination({ dest: 2, sync: true })));
  }
}

/** The default logger: pino on stderr at `level` (default: RXMCP_LOG_LEVEL, else `warn`). */
export function stderrLogger(level: LogLevelName = logLevelFromEnvironment()): Logger {
  return new StderrLogger(level);
}

function ignore(): void {}

/** A logger that writes nothing (for tests that provoke failures on purpose). */
export function silentLogger(): Logger {
  return { debug: ignore, info: ignore, warn: ignore, error: ignore };
}

export function isLogger(value: unknown): value is Logger {
  const l = value as Logger;
  return (
    typeof value === 'object' &&
    value !== null &&
    ['debug', 'info', 'warn', 'error'].every((m) => typeof (l as unknown as Record<string, unknown>)[m] === 'function')
  );
}
