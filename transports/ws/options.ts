/**
 * serveWebSocket's options, their defaults, and the validation that refuses
 * a bad value with a ConfigError naming the option (as createServer does).
 * Two shapes: attach to an existing http(s) server on one path, so the
 * WebSocket endpoint can share a port with the HTTP transport, or listen on
 * a port of its own.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { ConfigError } from '../../lib/errors.js';
import { positiveIntegerOption } from '../../lib/option-checks.js';
import { CONNECTION_LIMIT_OPTIONS, resolveConnectionLimits, type ConnectionLimitOptions, type ConnectionLimits } from '../connection-limits.js';
import { AUTH_OPTION_NAMES, resolveTransportAuth, type ResolvedAuth, type TransportAuthOptions } from '../auth-options.js';
import { trustedProxyHeaderOption } from '../peer.js';
import { unknownOptionMessage } from '../../lib/did-you-mean.js';

/** The host names always accepted as loopback. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The authentication options (../auth-options.ts): the `authenticator`
 * verifies the upgrade request, before the 101; `resource` names the
 * metadata in the challenges; `authorizationServers`, when given, has a
 * listener of its own publish the Protected Resource Metadata.
 */
interface CommonOptions extends TransportAuthOptions {
  /** Largest inbound message in bytes; a bigger one closes the socket with 1009. Default 4 MiB. */
  maxPayload?: number | undefined;
  /** Unread outbound bytes a socket may hold when the next message is due; over it the slow consumer is closed (1013). Default 8 MiB. */
  maxBufferedBytes?: number | undefined;
  /** Unread outbound bytes all sockets together may hold; over it the biggest holders are closed first (1013). Default 64 MiB. */
  maxTotalBufferedBytes?: number | undefined;
  /** Ping period on the server's scheduler; a socket that missed the last pong is terminated. Default 30 000; null disables. */
  pingIntervalMs?: number | null | undefined;
  /** How long a closing socket may take to finish the close handshake before it is terminated. Default 5 000. */
  closeGraceMs?: number | undefined;
  /** Sockets open at once (upgrades in progress included); one more is refused with 503. Default 16 384. */
  maxConnections?: number | undefined;
  /** Host header names (hostname only, port ignored) that may upgrade. Default loopback names; null disables the check. */
  allowedHosts?: readonly string[] | null | undefined;
  /**
   * Origins that may upgrade when the client sends one (browsers do; other
   * clients usually do not, and are let through). An entry with "://" is a
   * full origin, anything else a hostname. Default loopback names; null
   * disables the check.
   */
  allowedOrigins?: readonly string[] | null | undefined;
  /**
   * A header set by a reverse proxy you trust (e.g. `x-forwarded-for`) whose
   * first value names the client; the peer the fairness rules count by.
   * Default none: the socket's remote address (a client can forge any header).
   */
  trustedProxyHeader?: string | undefined;
  /** The network boot guard: false serves without chosen authorization, explicitly. */
  requireAuthorization?: boolean | undefined;
  /** The environment the boot guard reads NODE_ENV from; default process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Options of `serveWebSocket` attached to an existing `node:http` server. */
export interface AttachWebSocketOptions extends CommonOptions {
  /** An http or https server someone else listens with; only upgrades for `path` are handled. */
  server: HttpServer | HttpsServer;
  /** Default "/ws". */
  path?: string | undefined;
}

/** The socket-level limits (connection-limits.ts) apply to a listener of its own only: an attached server's owner sets them (serveHttp has them). */
export interface ListenWebSocketOptions extends CommonOptions, ConnectionLimitOptions {
  /** 0 picks a free port. */
  port: number;
  /** Default "127.0.0.1". */
  host?: string | undefined;
  /** Upgrades on any other path are refused with 404; default: any path. */
  path?: string | undefined;
}

/** Options of `serveWebSocket`: attached to a server, or listening on its own. */
export type ServeWebSocketOptions = AttachWebSocketOptions | ListenWebSocketOptions;

export interface ResolvedWebSocketOptions {
  readonly mode: 'attach' | 'listen';
  readonly httpServer: HttpServer | HttpsServer | undefined;
  readonly port: number;
  readonly host: string;
  readonly path: string | undefined;
  readonly maxPayload: number;
  readonly maxBufferedBytes: number;
  readonly maxTotalBufferedBytes: number;
  readonly pingIntervalMs: number | null;
  readonly closeGraceMs: number;
  readonly maxConnections: number;
  /** The socket-level limits of a listener of its own; undefined when attached. */
  readonly connectionLimits: ConnectionLimits | undefined;
  readonly allowedHosts: ReadonlySet<string> | null;
  readonly allowedOrigins: ReadonlySet<string> | null;
  readonly trustedProxyHeader: string | undefined;
  readonly requireAuthorization: boolean | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Null when no authenticator is configured. */
  readonly auth: ResolvedAuth | null;
  readonly requireAuthentication: boolean | undefined;
}

const KNOWN_OPTIONS = new Set<string>([
  'server', 'port', 'host', 'path', 'maxPayload', 'maxBufferedBytes', 'maxTotalBufferedBytes', 'pingIntervalMs', 'closeGraceMs', 'maxConnections',
  'allowedHosts', 'allowedOrigins', 'requireAuthorization', 'env', 'trustedProxyHeader', ...CONNECTION_LIMIT_OPTIONS, ...AUTH_OPTION_NAMES,
]);

/** Lower-cased, IPv6 literals bracketed, so "::1" and "[::1]" name the same host. */
export function normalizeHostname(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') && !lower.includes('://') ? `[${lower}]` : lower;
}

function nameList(option: string, value: unknown): ReadonlySet<string> | null {
  if (value === undefined) return new Set(LOOPBACK_NAMES);
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new ConfigError(option, `${option} must be an array of non-empty strings, or null to disable the check`);
  }
  return new Set(value.map(normalizeHostname));
}

function path(value: unknown, fallback: string | undefined): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/')) {
    throw new ConfigError('path', `path must be a string starting with "/", got ${JSON.stringify(value)}`);
  }
  return value;
}

export function resolveWebSocketOptions(options: ServeWebSocketOptions): ResolvedWebSocketOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'options must be an object');
  // A misspelt bound would otherwise silently fall back to its default.
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new ConfigError(key, unknownOptionMessage(key, KNOWN_OPTIONS));
  }
  const attach = 'server' in options && options.server !== undefined;
  if (attach && 'port' in options && options.port !== undefined) {
    throw new ConfigError('port', 'give either server (attach) or port (listen), not both');
  }
  if (!attach) {
    const port = (options as ListenWebSocketOptions).port;
    if (typeof port !== 'number' || !Number.isSafeInteger(port) || port < 0 || port > 65535) {
      throw new ConfigError('port', `port must be an integer from 0 to 65535 (or pass server to attach), got ${JSON.stringify(port)}`);
    }
  }
  if (attach) {
    for (const key of CONNECTION_LIMIT_OPTIONS) {
      if ((options as ConnectionLimitOptions)[key] !== undefined) {
        throw new ConfigError(key, `${key} applies to a listener of its own (port): the attached server's owner sets its socket limits (serveHttp has ${key} too)`);
      }
    }
  }
  const host = attach ? '' : ((options as ListenWebSocketOptions).host ?? '127.0.0.1');
  if (typeof host !== 'string') throw new ConfigError('host', 'host must be a string');
  const pingIntervalMs = options.pingIntervalMs === null ? null : positiveIntegerOption('pingIntervalMs', options.pingIntervalMs, 30_000);
  if (options.requireAuthorization !== undefined && typeof options.requireAuthorization !== 'boolean') {
    throw new ConfigError('requireAuthorization', 'requireAuthorization must be a boolean');
  }
  return {
    mode: attach ? 'attach' : 'listen',
    httpServer: attach ? (options as AttachWebSocketOptions).server : undefined,
    port: attach ? 0 : (options as ListenWebSocketOptions).port,
    host,
    path: path(options.path, attach ? '/ws' : undefined),
    maxPayload: positiveIntegerOption('maxPayload', options.maxPayload, 4 * 1024 * 1024),
    maxBufferedBytes: positiveIntegerOption('maxBufferedBytes', options.maxBufferedBytes, 8 * 1024 * 1024),
    maxTotalBufferedBytes: positiveIntegerOption('maxTotalBufferedBytes', options.maxTotalBufferedBytes, 64 * 1024 * 1024),
    pingIntervalMs,
    closeGraceMs: positiveIntegerOption('closeGraceMs', options.closeGraceMs, 5_000),
    maxConnections: positiveIntegerOption('maxConnections', options.maxConnections, 16_384),
    connectionLimits: attach ? undefined : resolveConnectionLimits(options as ListenWebSocketOptions),
    allowedHosts: nameList('allowedHosts', options.allowedHosts),
    allowedOrigins: nameList('allowedOrigins', options.allowedOrigins),
    trustedProxyHeader: trustedProxyHeaderOption(options.trustedProxyHeader),
    requireAuthorization: options.requireAuthorization,
    env: options.env ?? process.env,
    auth: resolveTransportAuth(options, { serversRequired: false }),
    requireAuthentication: options.requireAuthentication,
  };
}
