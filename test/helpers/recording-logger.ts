/**
 * A Logger that keeps every line it is given, for tests that assert what a
 * server tells its operator (a warning said once, an error naming its cause).
 */
import type { Logger } from '../../lib/index.js';

export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly msg: string;
}

export function recordingLogger(): { logger: Logger; lines: LoggedLine[]; at(level: LoggedLine['level']): string[] } {
  const lines: LoggedLine[] = [];
  const record = (level: LoggedLine['level']) => (fields: unknown, msg?: string) => {
    lines.push({ level, fields: (fields ?? {}) as Record<string, unknown>, msg: msg ?? '' });
  };
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines, at: (level) => lines.filter((line) => line.level === level).map((line) => line.msg) };
}
