/**
 * Options of the HTTP transport (streamable HTTP and legacy HTTP+SSE on one
 * handler), their defaults, and the validation that refuses a bad value with
 * a ConfigError naming the option. Every bound has a finite default: no
 * client can make this transport hold unbounded state.
 */
import { ConfigError } from '../../lib/errors.js';
import { positiveIntegerOption } from '../../lib/option-checks.js';
import { AUTH_OPTION_NAMES, resolveTransportAuth, type ResolvedAuth, type TransportAuthOptions } from '../auth-options.js';
import { trustedProxyHeaderOption } from '../peer.js';
import { InMemoryEventStore, type EventStore } from '../../lib/ports/event-store.js';
import { DEFAULT_ALLOWED_HOSTS } from './origin-guard.js';
import { isNodeId, type SessionDirectory } from '../../lib/ports/session-directory.js';

/** The authentication options (authenticator, resource, authorizationServers, requiredScopes, requireAuthentication) are described in ../auth-options.ts. */
export interface HttpHandlerOptions extends TransportAuthOptions {
  /** The streamable HTTP endpoint; default `/mcp`. */
  endpoint?: string | undefined;
  /** GET here answers 200 JSON; `null` turns it off. Default `/health`. */
  healthPath?: string | null | undefined;
  /** The 2024-11-05 HTTP+SSE transport on the same handler; `false` turns it off. Default on at `/sse` and `/messages`. */
  legacySse?: boolean | { ssePath?: string | undefined; messagesPath?: string | undefined } | undefined;
  /** Live sessions (both transports together); a full table evicts fairly (see docs/transports.md), then refuses with 503. Default 1024. */
  maxSessions?: number | undefined;
  /**
   * One owner's share of maxSessions (the principal's when authenticated, else the peer's); an owner past it makes room from
   * its own sessions only. Default max(floor(maxSessions / 2), 1).
   */
  maxSessionsPerPeer?: number | undefined;
  /** A session with no request and no open stream for this long is ended. Default 600 000 ms; `Infinity` turns it off. */
  sessionIdleTimeoutMs?: number | undefined;
  /** Request bodies above this are a 413. Default 4 MiB. */
  maxBodyBytes?: number | undefined;
  /** A comment line on every open SSE stream this often. Default 15 000 ms. */
  keepAliveMs?: number | undefined;
  /** The SSE `retry:` field sent with each stream's priming event. Default 1000 ms. */
  retryMs?: number | undefined;
  /** Unread bytes a stream may have in its socket before it waits for the reader to drain them. Default 1 MiB. */
  maxStreamBufferBytes?: number | undefined;
  /** A stream waiting on its reader whose unread bytes do not go down at all for this long is cut off. Default 30 000 ms. */
  streamStallTimeoutMs?: number | undefined;
  /** Messages held for a session's standalone GET stream while none is open. Default 256. */
  maxBacklogMessages?: number | undefined;
  /** Open GET streams per session; opening one more ends the oldest. Default 4. */
  maxGetStreamsPerSession?: number | undefined;
  /** Where SSE events are kept for replay after Last-Event-ID. Default a bounded in-memory store. */
  eventStore?: EventStore | undefined;
  /**
   * Several nodes behind one address (session-directory.ts): sessions minted here name this node, and a request
   * for a session another live node holds is relayed to it (relay.ts). Default none: this handler is alone.
   */
  sessionDirectory?: SessionDirectory | undefined;
  /** How long a relay waits for the owner node to take the connection before the session counts as gone (404). Default 2000 ms. */
  relayConnectTimeoutMs?: number | undefined;
  /** Host header names (optionally `name:port`) accepted; default the loopback names, any port. */
  allowedHosts?: readonly string[] | undefined;
  /** Origin headers accepted (e.g. `https://app.example`); default any origin whose host is in allowedHosts. */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * A header set by a reverse proxy you trust (e.g. `x-forwarded-for`) whose
   * first value names the client; the peer the fairness rules count by.
   * Default none: the socket's remote address (a client can forge any header).
   */
  trustedProxyHeader?: string | undefined;
  /** The network boot guard: `false` serves without authorization. Default: required unless NODE_ENV is development/test. */
  requireAuthorization?: boolean | undefined;
  /** Where the boot guard reads NODE_ENV; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
}

export interface ResolvedHttpOptions {
  readonly endpoint: string;
  readonly healthPath: string | null;
  readonly ssePath: string | null;
  readonly messagesPath: string | null;
  readonly maxSessions: number;
  readonly maxSessionsPerPeer: number;
  readonly sessionIdleTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly keepAliveMs: number;
  readonly retryMs: number;
  readonly maxStreamBufferBytes: number;
  readonly streamStallTimeoutMs: number;
  readonly maxBacklogMessages: number;
  readonly maxGetStreamsPerSession: number;
  readonly eventStore: EventStore;
  readonly sessionDirectory: SessionDirectory | null;
  readonly relayConnectTimeoutMs: number;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[] | null;
  readonly trustedProxyHeader: string | undefined;
  readonly requireAuthorization: boolean | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Null when no authenticator is configured. */
  readonly auth: ResolvedAuth | null;
  readonly requireAuthentication: boolean | undefined;
}

const KNOWN = new Set([
  'endpoint', 'healthPath', 'legacySse', 'maxSessions', 'maxSessionsPerPeer', 'sessionIdleTimeoutMs', 'maxBodyBytes', 'keepAliveMs',
  'retryMs', 'maxStreamBufferBytes', 'streamStallTimeoutMs', 'maxBacklogMessages', 'maxGetStreamsPerSession', 'eventStore', 'sessionDirectory', 'relayConnectTimeoutMs', 'allowedHosts', 'allowedOrigins',
  'requireAuthorization', 'env', 'trustedProxyHeader', ...AUTH_OPTION_NAMES,
]);

/** The one bound that may be Infinity (it turns the idle timeout off); its message names that way out. */
function idleTimeoutMs(value: unknown): number {
  if (value === Infinity) return value;
  if (value !== undefined && (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)) {
    throw new ConfigError('sessionIdleTimeoutMs', `sessionIdleTimeoutMs must be a positive integer or Infinity, got ${String(value)}`);
  }
  return positiveIntegerOption('sessionIdleTimeoutMs', value, 600_000);
}

function path(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/') || value.includes('?')) {
    throw new ConfigError(option, `${option} must be a path starting with "/" and without a query`);
  }
  return value;
}

function stringList(option: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new ConfigError(option, `${option} must be an array of non-empty strings`);
  }
  return value.map((v: string) => v.toLowerCase());
}

function isEventStore(value: unknown): value is EventStore {
  const store = value as EventStore;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof store.append === 'function' &&
    typeof store.replayAfter === 'function' &&
    typeof store.deleteSession === 'function'
  );
}

function isSessionDirectory(value: unknown): value is SessionDirectory {
  const directory = value as SessionDirectory;
  return (
    typeof value === 'object' &&
    value !== null &&
    isNodeId(directory.nodeId) &&
    directory.relayKey instanceof Uint8Array &&
    directory.relayKey.length >= 16 &&
    typeof directory.locate === 'function' &&
    typeof directory.unreachable === 'function'
  );
}

export function resolveHttpOptions(options: HttpHandlerOptions = {}): ResolvedHttpOptions {
  if (typeof options !== 'object' || options === null) throw new ConfigError('options', 'options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new ConfigError(key, `unknown HTTP transport option ${key}`);
  }
  const legacy = options.legacySse ?? true;
  if (typeof legacy !== 'boolean' && (typeof legacy !== 'object' || legacy === null)) {
    throw new ConfigError('legacySse', 'legacySse must be a boolean or { ssePath, messagesPath }');
  }
  const legacyPaths = typeof legacy === 'object' ? legacy : {};
  if (options.eventStore !== undefined && !isEventStore(options.eventStore)) {
    throw new ConfigError('eventStore', 'eventStore must implement append, replayAfter and deleteSession');
  }
  if (options.sessionDirectory !== undefined && !isSessionDirectory(options.sessionDirectory)) {
    throw new ConfigError('sessionDirectory', 'sessionDirectory must have a nodeId (letters, digits, _ and -), a relayKey of 16 bytes or more, locate and unreachable');
  }
  if (options.requireAuthorization !== undefined && typeof options.requireAuthorization !== 'boolean') {
    throw new ConfigError('requireAuthorization', 'requireAuthorization must be a boolean');
  }
  const healthPath = options.healthPath === null ? null : path('healthPath', options.healthPath, '/health');
  const maxSessions = positiveIntegerOption('maxSessions', options.maxSessions, 1024);
  const maxSessionsPerPeer = positiveIntegerOption('maxSessionsPerPeer', options.maxSessionsPerPeer, Math.max(Math.floor(maxSessions / 2), 1));
  if (maxSessionsPerPeer > maxSessions) {
    throw new ConfigError('maxSessionsPerPeer', `maxSessionsPerPeer (${maxSessionsPerPeer}) may not exceed maxSessions (${maxSessions})`);
  }
  return {
    endpoint: path('endpoint', options.endpoint, '/mcp'),
    healthPath,
    ssePath: legacy === false ? null : path('legacySse.ssePath', legacyPaths.ssePath, '/sse'),
    messagesPath: legacy === false ? null : path('legacySse.messagesPath', legacyPaths.messagesPath, '/messages'),
    maxSessions,
    maxSessionsPerPeer,
    sessionIdleTimeoutMs: idleTimeoutMs(options.sessionIdleTimeoutMs),
    maxBodyBytes: positiveIntegerOption('maxBodyBytes', options.maxBodyBytes, 4 * 1024 * 1024),
    keepAliveMs: positiveIntegerOption('keepAliveMs', options.keepAliveMs, 15_000),
    retryMs: positiveIntegerOption('retryMs', options.retryMs, 1000),
    maxStreamBufferBytes: positiveIntegerOption('maxStreamBufferBytes', options.maxStreamBufferBytes, 1024 * 1024),
    streamStallTimeoutMs: positiveIntegerOption('streamStallTimeoutMs', options.streamStallTimeoutMs, 30_000),
    maxBacklogMessages: positiveIntegerOption('maxBacklogMessages', options.maxBacklogMessages, 256),
    maxGetStreamsPerSession: positiveIntegerOption('maxGetStreamsPerSession', options.maxGetStreamsPerSession, 4),
    eventStore: options.eventStore ?? new InMemoryEventStore(),
    sessionDirectory: options.sessionDirectory ?? null,
    relayConnectTimeoutMs: positiveIntegerOption('relayConnectTimeoutMs', options.relayConnectTimeoutMs, 2000),
    allowedHosts: stringList('allowedHosts', options.allowedHosts) ?? DEFAULT_ALLOWED_HOSTS,
    allowedOrigins: stringList('allowedOrigins', options.allowedOrigins) ?? null,
    trustedProxyHeader: trustedProxyHeaderOption(options.trustedProxyHeader),
    requireAuthorization: options.requireAuthorization,
    env: options.env ?? process.env,
    auth: resolveTransportAuth(options, { serversRequired: true }),
    requireAuthentication: options.requireAuthentication,
  };
}
