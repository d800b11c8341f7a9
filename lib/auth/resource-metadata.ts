/**
 * Protected Resource Metadata (RFC 9728): the document that tells a client
 * which authorization servers issue tokens for this resource, and where it
 * is published.
 *
 * `resource` is the canonical resource URI, the same string a client sends
 * as RFC 8707 `resource` and a token carries in `aud`. The document lives at
 * the path-aware well-known URL (the well-known segment inserted between
 * host and path, RFC 9728 §3.1); the root URL serves the origin-level
 * resource. `offline_access` is left out of `scopes_supported` (MCP
 * 2026-07-28).
 */
import { ConfigError } from '../errors.js';
import { nonEmptyStrings, optionalString, refuseUnknown, requireObject } from './config.js';
import { serverUrl } from './fetch-json.js';

export const PRM_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** Options of `protectedResourceMetadata`. */
export interface ProtectedResourceMetadataOptions {
  /** The canonical resource URI (https; http only on localhost); no fragment. */
  readonly resource: string;
  /** Issuer URLs of the authorization servers; at least one. */
  readonly authorizationServers: readonly string[];
  readonly scopesSupported?: readonly string[] | undefined;
  readonly resourceName?: string | undefined;
  /** A URL of human-readable documentation. */
  readonly resourceDocumentation?: string | undefined;
}

/** The RFC 9728 Protected Resource Metadata document. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[] | undefined;
  readonly bearer_methods_supported: readonly string[];
  readonly resource_name?: string | undefined;
  readonly resource_documentation?: string | undefined;
}

const KNOWN = ['resource', 'authorizationServers', 'scopesSupported', 'resourceName', 'resourceDocumentation'];

/** The RFC 9728 document, frozen; a ConfigError names a bad option. */
export function protectedResourceMetadata(options: ProtectedResourceMetadataOptions): ProtectedResourceMetadata {
  const raw = requireObject('protectedResourceMetadata', options);
  refuseUnknown('protectedResourceMetadata', raw, KNOWN);
  serverUrl('protectedResourceMetadata.resource', options.resource);
  const servers = nonEmptyStrings('protectedResourceMetadata.authorizationServers', options.authorizationServers);
  for (const server of servers) serverUrl('protectedResourceMetadata.authorizationServers', server, { allowQuery: false });
  const scopes =
    options.scopesSupported === undefined
      ? undefined
      : nonEmptyStrings('protectedResourceMetadata.scopesSupported', options.scopesSupported, { required: false }).filter(
          (scope) => scope !== 'offline_access',
        );
  if (scopes?.some((scope) => /[\s"\\]/.test(scope))) {
    throw new ConfigError('protectedResourceMetadata.scopesSupported', 'a scope may not hold whitespace, " or \\');
  }
  const resourceName = optionalString('protectedResourceMetadata.resourceName', options.resourceName);
  const documentation =
    options.resourceDocumentation === undefined
      ? undefined
      : serverUrl('protectedResourceMetadata.resourceDocumentation', options.resourceDocumentation).href;
  return Object.freeze({
    resource: options.resource,
    authorization_servers: servers,
    ...(scopes === undefined ? {} : { scopes_supported: Object.freeze(scopes) }),
    bearer_methods_supported: Object.freeze(['header']),
    ...(resourceName === undefined ? {} : { resource_name: resourceName }),
    ...(documentation === undefined ? {} : { resource_documentation: documentation }),
  });
}

/** Where the Protected Resource Metadata of a resource is served: the path-aware and root well-known paths, and the absolute URL. */
export interface WellKnownPaths {
  /** `/.well-known/oauth-protected-resource<resource path>`: the document of this resource. */
  readonly pathAware: string;
  /** `/.well-known/oauth-protected-resource`: the origin's document (the same as pathAware for a root resource). */
  readonly root: string;
  /** The absolute URL of the path-aware document (with the resource's query), for `resource_metadata`. */
  readonly url: string;
}

/** Where the metadata of `resource` is published (RFC 9728 §3.1). */
export function wellKnownPaths(resource: string): WellKnownPaths {
  const url = serverUrl('resource', resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  const pathAware = `${PRM_WELL_KNOWN}${path}`;
  return { pathAware, root: PRM_WELL_KNOWN, url: `${url.origin}${pathAware}${url.search}` };
}
