/** RFC 5424 severities as MCP names them, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** An MCP log level, from `debug` to `emergency`. */
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && (LOG_LEVELS as readonly string[]).includes(value);
}

/** Whether a message at `level` passes a connection whose threshold is `threshold`. */
export function passesLevel(level: unknown, threshold: LogLevel): boolean {
  if (!isLogLevel(level)) return true;
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(threshold);
}
