/**
 * The public route of a protected HTTP transport: its Protected Resource
 * Metadata (RFC 9728), at the path-aware well-known URL of the canonical
 * resource (`/.well-known/oauth-protected-resource/mcp` for `…/mcp`) and at
 * the root one, since clients try both. GET and HEAD answer the document,
 * OPTIONS a CORS preflight (browser-based clients must be able to read it);
 * anything else is a 405. No token is needed: this is how a client learns
 * where to get one.
 *
 * `scopes_supported` is the endpoint's `requiredScopes` and every scope a
 * registered tool, resource, template or prompt declares, read at each
 * request, so tools registered later are in it.
 */
import { protectedResourceMetadata } from '../../lib/auth/resource-metadata.js';
import { declaredScopes } from '../../lib/auth/target-scopes.js';
import type { Registry } from '../../lib/registry.js';
import type { ResolvedAuth } from '../auth-options.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { refuse } from './responses.js';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
  'Access-Control-Allow-Headers': 'MCP-Protocol-Version',
};

export interface ProtectedResourceRoute {
  /** The paths the document is served at. */
  readonly paths: ReadonlySet<string>;
  serve(req: RequestHead, res: ResponseSink): void;
}

/** Null when no authorization server is named (a WebSocket transport may leave the document to its HTTP sibling). */
export function protectedResourceRoute(auth: ResolvedAuth, registry: Registry): ProtectedResourceRoute | null {
  if (auth.authorizationServers === undefined) return null;
  const paths = new Set([auth.wellKnown.pathAware, auth.wellKnown.root]);
  const document = () =>
    protectedResourceMetadata({
      resource: auth.resource,
      authorizationServers: auth.authorizationServers ?? [],
      scopesSupported: [...new Set([...auth.requiredScopes, ...declaredScopes(registry)])],
    });
  return {
    paths,
    serve(req, res) {
      const method = req.method ?? 'GET';
      if (method === 'OPTIONS') {
        res.writeHead(204, { ...CORS, 'Access-Control-Max-Age': '86400' });
        res.end();
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') return refuse(res, 405, 'Method Not Allowed: use GET', { Allow: 'GET, HEAD, OPTIONS', ...CORS });
      const metadata = document();
      const body = JSON.stringify(metadata.scopes_supported?.length === 0 ? { ...metadata, scopes_supported: undefined } : metadata);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), ...CORS });
      res.end(method === 'HEAD' ? undefined : body);
    },
  };
}
