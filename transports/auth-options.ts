/**
 * The authentication options the network transports share (HTTP and
 * WebSocket), validated into one resolved value, or null when no
 * authenticator is configured.
 *
 * With an `authenticator`, `resource` is required: the canonical resource
 * URI clients send as RFC 8707 `resource` and the Protected Resource
 * Metadata names. It is not derived from the bound address, because the
 * address a server listens on (0.0.0.0, a container's port, behind a proxy)
 * is rarely the URL its clients use. The HTTP transport also requires
 * `authorizationServers` (MCP makes the metadata document name at least
 * one); the WebSocket transport takes them to publish that document on a
 * listener of its own. `resource`, `authorizationServers` and
 * `requiredScopes` without an authenticator are a ConfigError: they would
 * protect nothing.
 */
import type { Authenticator } from '../lib/auth/authenticator.js';
import { protectedResourceMetadata, wellKnownPaths, type WellKnownPaths } from '../lib/auth/resource-metadata.js';
import { isScopeToken } from '../lib/auth/scope-tokens.js';
import { ConfigError } from '../lib/errors.js';

/** The authentication options of the network transports (HTTP and WebSocket): the authenticator, the canonical `resource`, the authorization servers and the required scopes. */
export interface TransportAuthOptions {
  /** Verifies every request (HTTP) or the upgrade (WebSocket); default none. */
  authenticator?: Authenticator | undefined;
  /** The canonical resource URI (e.g. `https://mcp.example.com/mcp`); required with an authenticator. */
  resource?: string | undefined;
  /** Issuer URLs of the authorization servers, for the Protected Resource Metadata. */
  authorizationServers?: readonly string[] | undefined;
  /** Scopes every request needs (403 `insufficient_scope` without them); default none. */
  requiredScopes?: readonly string[] | undefined;
  /**
   * The authentication boot guard: `false` serves a non-loopback address
   * without an authenticator on purpose; `true` requires one whatever the
   * address. Default: required when bound to a non-loopback address.
   */
  requireAuthentication?: boolean | undefined;
}

export const AUTH_OPTION_NAMES: readonly string[] = ['authenticator', 'resource', 'authorizationServers', 'requiredScopes', 'requireAuthentication'];

export interface ResolvedAuth {
  readonly authenticator: Authenticator;
  readonly resource: string;
  /** Undefined when not given (allowed on WebSocket only). */
  readonly authorizationServers: readonly string[] | undefined;
  readonly requiredScopes: readonly string[];
  /** Where the metadata is published, and its URL for `resource_metadata`. */
  readonly wellKnown: WellKnownPaths;
}

function isAuthenticator(value: unknown): value is Authenticator {
  return typeof value === 'object' && value !== null && typeof (value as Authenticator).authenticate === 'function';
}

function scopeList(value: unknown): readonly string[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value) || !value.every(isScopeToken)) {
    throw new ConfigError('requiredScopes', 'requiredScopes must be an array of OAuth scope tokens (no spaces, " or \\)');
  }
  return Object.freeze([...new Set(value as string[])]);
}

export function requireAuthenticationOption(value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw new ConfigError('requireAuthentication', 'requireAuthentication must be a boolean');
  return value;
}

/** Re-throws a metadata builder's error under the transport's own option name. */
function asOption(option: string, build: () => void): void {
  try {
    build();
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(option, error.message.replace(/protectedResourceMetadata\./g, ''));
    throw error;
  }
}

export function resolveTransportAuth(options: TransportAuthOptions, { serversRequired }: { serversRequired: boolean }): ResolvedAuth | null {
  requireAuthenticationOption(options.requireAuthentication);
  if (options.authenticator === undefined) {
    for (const name of ['resource', 'authorizationServers', 'requiredScopes'] as const) {
      if (options[name] !== undefined) throw new ConfigError(name, `${name} needs an authenticator: without one nothing is protected`);
    }
    return null;
  }
  if (!isAuthenticator(options.authenticator)) {
    throw new ConfigError('authenticator', 'authenticator must be an Authenticator ({ authenticate(request) }), e.g. jwtBearer(...)');
  }
  if (options.resource === undefined) {
    throw new ConfigError('resource', 'resource (the canonical resource URI clients use, e.g. https://mcp.example.com/mcp) is required with an authenticator');
  }
  if (serversRequired && options.authorizationServers === undefined) {
    throw new ConfigError('authorizationServers', 'authorizationServers (the issuer URLs of your authorization servers) is required with an authenticator');
  }
  const requiredScopes = scopeList(options.requiredScopes);
  const resource = options.resource;
  asOption('resource', () => protectedResourceMetadata({ resource, authorizationServers: ['https://as.invalid'] }));
  let servers: readonly string[] | undefined;
  if (options.authorizationServers !== undefined) {
    const given = options.authorizationServers;
    asOption('authorizationServers', () => protectedResourceMetadata({ resource, authorizationServers: given }));
    servers = Object.freeze([...given]);
  }
  return Object.freeze({ authenticator: options.authenticator, resource, authorizationServers: servers, requiredScopes, wellKnown: wellKnownPaths(resource) });
}
