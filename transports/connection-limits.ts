/**
 * The socket-level limits of a network listener we own (serveHttp's server,
 * serveWebSocket's own listener): how many sockets may be open, in all and
 * from one remote address, and how long a socket may take over its request
 * headers, over a request body, and sit idle between requests. Every limit
 * has a finite default of seconds, and a bad value is a ConfigError naming
 * the option.
 */
import { ConfigError } from '../lib/errors.js';
import { positiveIntegerOption } from '../lib/option-checks.js';

export interface ConnectionLimitOptions {
  /** Sockets open at once on the listener (upgraded and streaming ones included); one more is closed at accept. Default 8192. */
  maxSockets?: number | undefined;
  /** One remote address's share of maxSockets; one more from it is closed at accept. Default max(floor(maxSockets / 8), 1). */
  maxSocketsPerAddress?: number | undefined;
  /** From accept until a request's headers have all arrived; past it the socket is answered 408 and closed. Default 10 000 ms. */
  headersTimeoutMs?: number | undefined;
  /** From a request's headers until its body has all arrived; past it 408 (if no answer started) and the socket closed. Default 30 000 ms. */
  bodyTimeoutMs?: number | undefined;
  /** A keep-alive socket with no request in progress is closed after this long. Default 5 000 ms. */
  idleSocketTimeoutMs?: number | undefined;
}

export interface ConnectionLimits {
  readonly maxSockets: number;
  readonly maxSocketsPerAddress: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly idleSocketTimeoutMs: number;
}

export const CONNECTION_LIMIT_OPTIONS: readonly (keyof ConnectionLimitOptions)[] = [
  'maxSockets', 'maxSocketsPerAddress', 'headersTimeoutMs', 'bodyTimeoutMs', 'idleSocketTimeoutMs',
];

export function resolveConnectionLimits(options: ConnectionLimitOptions): ConnectionLimits {
  const maxSockets = positiveIntegerOption('maxSockets', options.maxSockets, 8192);
  const maxSocketsPerAddress = positiveIntegerOption('maxSocketsPerAddress', options.maxSocketsPerAddress, Math.max(Math.floor(maxSockets / 8), 1));
  if (maxSocketsPerAddress > maxSockets) {
    throw new ConfigError('maxSocketsPerAddress', `maxSocketsPerAddress (${maxSocketsPerAddress}) may not exceed maxSockets (${maxSockets})`);
  }
  return {
    maxSockets,
    maxSocketsPerAddress,
    headersTimeoutMs: positiveIntegerOption('headersTimeoutMs', options.headersTimeoutMs, 10_000),
    bodyTimeoutMs: positiveIntegerOption('bodyTimeoutMs', options.bodyTimeoutMs, 30_000),
    idleSocketTimeoutMs: positiveIntegerOption('idleSocketTimeoutMs', options.idleSocketTimeoutMs, 5_000),
  };
}

/** Splits the connection-limit options off a transport's options. */
export function takeConnectionLimitOptions<T extends ConnectionLimitOptions>(options: T): [ConnectionLimitOptions, Omit<T, keyof ConnectionLimitOptions>] {
  const limits: Record<string, unknown> = {};
  const rest = { ...options } as Record<string, unknown>;
  for (const key of CONNECTION_LIMIT_OPTIONS) {
    if (key in rest) {
      limits[key] = rest[key];
      delete rest[key];
    }
  }
  return [limits as ConnectionLimitOptions, rest as Omit<T, keyof ConnectionLimitOptions>];
}
