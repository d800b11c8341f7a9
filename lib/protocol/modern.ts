/**
 * The two protocol eras rxmcp serves, and the per-request envelope of the
 * modern one (MCP 2026-07-28, stateless).
 *
 * A modern request says so itself: `params._meta` carries
 * `io.modelcontextprotocol/protocolVersion` (the "claim") beside the
 * client's capabilities for this one request, and optionally its clientInfo
 * and log level. Nothing about the client is remembered between modern
 * requests; a legacy (2025-11-25 and older) request relies on what
 * `initialize` recorded for its connection.
 */
import type { LogLevel } from '../log-levels.js';
import { isPlainObject } from './jsonrpc.js';

/** Which protocol era a request is served under: decided once per request, at the edge (streams/stages/decide-era.ts). */
export type Era = 'legacy' | 'modern';

/** The stateless revisions this server serves, newest first. Never mixed with the legacy list (versions.ts). */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/** A modern (2026-07-28 and later) protocol revision this server serves. */
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

/** The reserved `_meta` keys of the modern envelope and of modern results. */
export const MODERN_META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** What a client said about itself, as it said it (display and logs only: never identity, never a security input). */
export interface ModernClientInfo {
  readonly name: string;
  readonly version: string;
}

/** One modern request's envelope, validated (streams/modern-envelope.ts). */
export interface ModernRequest {
  readonly protocolVersion: ModernProtocolVersion;
  /** The client's capabilities for THIS request, as sent (a plain object; `{}` means none). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly clientInfo?: ModernClientInfo;
  /** Absent: no notifications/message may be sent for this request. */
  readonly logLevel?: LogLevel;
}

/**
 * A modern request's envelope as the transport read it (readEnvelope), with
 * the params object it was read from. Here, not beside the stage that uses
 * it: `serveOne` names it in the package's public types, which must not
 * reach the server's state (and through it the optional peer
 * @opentelemetry/api that a consumer may not have).
 */
export interface ReadEnvelope {
  readonly params: Record<string, unknown>;
  readonly envelope: ModernRequest;
}

/** Whether a request's params make the modern claim (its validity is the envelope's to check). */
export function hasModernClaim(params: Record<string, unknown> | undefined): boolean {
  const meta = params?._meta;
  return isPlainObject(meta) && Object.hasOwn(meta, MODERN_META.protocolVersion);
}

export function isModernProtocolVersion(value: unknown): value is ModernProtocolVersion {
  return typeof value === 'string' && (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/**
 * How a connection's requests get their era (ConnectOptions.era):
 * - 'per-connection': the first request other than a `server/discover` probe
 *   pins the connection (stdio, WebSocket, the in-memory transport, any
 *   custom connection);
 * - 'per-message': each request by its own claim, nothing pinned (direct
 *   callers; a per-request HTTP classifier);
 * - 'legacy': legacy only (legacy HTTP+SSE, streamable HTTP sessions).
 */
export type EraPolicy = 'per-connection' | 'per-message' | 'legacy';
