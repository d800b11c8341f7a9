/**
 * The Host/Origin guard against DNS rebinding: a page on an attacker's name
 * that resolves to 127.0.0.1 still sends its own Host and Origin. A request
 * whose Host is not allowed, or whose Origin is present and not allowed, is
 * refused (403) before anything else is read.
 *
 * Host entries are names (any port) or `name:port`; IPv6 literals keep their
 * brackets (`[::1]`). Without `allowedOrigins`, an Origin is allowed when its
 * host would be an allowed Host; with it, only those exact origins are.
 *
 * `hostAndOriginGuard` is the same check for one handler, remembering the
 * verdicts of the few Host/Origin pairs its clients send (a bounded cache:
 * a client cycling through names only ever makes it start over).
 */
import type { RequestHead } from './exchange.js';

export const DEFAULT_ALLOWED_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface OriginPolicy {
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[] | null;
}

export type GuardVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

const OK: GuardVerdict = { ok: true };

/** Splits `host[:port]` (with `[v6]` literals) into a lower-case name and a port. */
export function splitHost(value: string): { name: string; port: string | null } | undefined {
  const host = value.trim().toLowerCase();
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (match === null) return undefined;
  return { name: match[1]!, port: match[2] ?? null };
}

export function hostAllowed(value: string, allowedHosts: readonly string[]): boolean {
  const host = splitHost(value);
  if (host === undefined) return false;
  return allowedHosts.some((entry) => {
    const allowed = splitHost(entry);
    return allowed !== undefined && allowed.name === host.name && (allowed.port === null || allowed.port === host.port);
  });
}

function originAllowed(origin: string, policy: OriginPolicy): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // includes the opaque "null" origin of sandboxed pages and file: URLs
  }
  if (policy.allowedOrigins !== null) return policy.allowedOrigins.includes(url.origin.toLowerCase());
  return (url.protocol === 'http:' || url.protocol === 'https:') && hostAllowed(url.host, policy.allowedHosts);
}

export function checkHostAndOrigin(req: RequestHead, policy: OriginPolicy): GuardVerdict {
  const host = req.headers.host;
  if (host === undefined || !hostAllowed(host, policy.allowedHosts)) {
    return { ok: false, reason: `Forbidden: Host ${JSON.stringify(host ?? '')} is not allowed` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(origin, policy)) {
    return { ok: false, reason: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` };
  }
  return OK;
}

/** At most this many Host/Origin pairs are remembered; one more starts the cache over. */
const VERDICT_CACHE_SIZE = 256;

export function hostAndOriginGuard(policy: OriginPolicy): (req: RequestHead) => GuardVerdict {
  const verdicts = new Map<string, GuardVerdict>();
  return (req) => {
    const { host, origin } = req.headers;
    const key = origin === undefined ? host : `${host ?? ''}\n${origin}`;
    if (key === undefined) return checkHostAndOrigin(req, policy);
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = checkHostAndOrigin(req, policy);
      if (verdicts.size >= VERDICT_CACHE_SIZE) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict;
  };
}
