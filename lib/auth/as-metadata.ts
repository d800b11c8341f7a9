/**
 * Authorization-server metadata discovery (RFC 8414, then OpenID Connect
 * Discovery), as the MCP spec orders it: for an issuer with a path
 * (`https://as/tenant`), the well-known segment goes between host and path
 * (`https://as/.well-known/oauth-authorization-server/tenant`), then the OIDC
 * variants (inserted, then appended); for an issuer without one, the two
 * root documents. The first document whose `issuer` is exactly the
 * configured issuer wins (RFC 8414 §3.3: anything else must not be used).
 */
import type { SchedulerLike } from 'rxjs';
import { AuthServerError, fetchJson } from './fetch-json.js';

export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const origin = url.origin;
  if (path === '') return [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`];
  return [
    `${origin}/.well-known/oauth-authorization-server${path}`,
    `${origin}/.well-known/openid-configuration${path}`,
    `${origin}${path}/.well-known/openid-configuration`,
  ];
}

export interface DiscoveryOptions {
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
}

/** The issuer's metadata document; rejects when no candidate answers one for this issuer. */
export async function discoverMetadata(issuer: string, options: DiscoveryOptions): Promise<Record<string, unknown>> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const document = await fetchJson(url, options);
      if (document.issuer === issuer) return document;
      problems.push(`${url} names issuer ${JSON.stringify(document.issuer)}`);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  throw new AuthServerError(`no authorization server metadata for ${issuer}: ${problems.join('; ')}`);
}
