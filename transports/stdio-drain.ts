/**
 * stdio's `drainMs`: when input ends (the client closed stdin: `echo '...' |
 * node server.js`, or a desktop client shutting down), how long the requests
 * still owed a reply may take, instead of being dropped. The server keeps the
 * count (server.connect's drainMs: the connection's calls in flight); this
 * only reads the option.
 */
import { ConfigError } from '../lib/errors.js';

/** Default of StdioOptions.drainMs. */
export const DEFAULT_DRAIN_MS = 1000;

export function drainMsOption(value: unknown): number {
  if (value === undefined) return DEFAULT_DRAIN_MS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError('drainMs', `drainMs must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return value;
}
