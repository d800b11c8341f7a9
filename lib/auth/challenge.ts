/**
 * renderChallenge: an AuthFailure as the HTTP answer a resource server sends
 * (RFC 6750 §3, RFC 9728 §5.1): the status, the `WWW-Authenticate: Bearer`
 * challenge and an OAuth error JSON body. A transport writes it as is.
 *
 * Parameters, in this order when present: resource_metadata, scope, error,
 * error_description. No credentials → no error code (RFC 6750 §3.1). A 500
 * (the verifier could not decide) carries no challenge, since retrying with
 * another token would not help.
 *
 * RFC 6750 allows only %x20-21 / %x23-5B / %x5D-7E inside these values (no
 * `"`, no `\`, nothing outside printable ASCII), so a description written by a
 * verifier is made to fit rather than escaped: it can never break the header.
 */
import type { AuthFailure } from './authenticator.js';

/** Options of `renderChallenge`: the Protected Resource Metadata URL and the scopes to name. */
export interface ChallengeOptions {
  /** The URL of this resource's Protected Resource Metadata document (RFC 9728). */
  readonly resourceMetadata?: string | undefined;
  /** The scopes to challenge for when the failure names none (e.g. the endpoint's). */
  readonly scope?: readonly string[] | undefined;
}

/** An authentication failure as an HTTP answer: status, `WWW-Authenticate` header and OAuth error body. */
export interface Challenge {
  readonly status: 400 | 401 | 403 | 500;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** NQCHAR (RFC 6749 A.4): a scope token may not hold a space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Makes `text` fit a quoted RFC 6750 value: `"` becomes `'`, anything else not allowed becomes `?`. */
export function challengeValue(text: string): string {
  return text.replace(/"/g, "'").replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
}

/** Space-delimited scope tokens; anything not a scope token is left out, not mangled. */
export function scopeValue(scopes: readonly string[]): string {
  return [...new Set(scopes.filter((scope) => SCOPE_TOKEN.test(scope)))].join(' ');
}

/** The `WWW-Authenticate` value for a failure, or undefined for a 500. */
export function challengeHeader(failure: AuthFailure, options: ChallengeOptions = {}): string | undefined {
  if (failure.status === 500) return undefined;
  const params: string[] = [];
  if (options.resourceMetadata !== undefined) params.push(`resource_metadata="${challengeValue(options.resourceMetadata)}"`);
  const scope = scopeValue(failure.scope ?? options.scope ?? []);
  if (scope.length > 0) params.push(`scope="${scope}"`);
  if (failure.error !== undefined) {
    params.push(`error="${failure.error}"`);
    params.push(`error_description="${challengeValue(failure.description)}"`);
  }
  return params.length === 0 ? 'Bearer' : `Bearer ${params.join(', ')}`;
}

/** The complete answer: status, headers (challenge and content type) and the JSON body. */
export function renderChallenge(failure: AuthFailure, options: ChallengeOptions = {}): Challenge {
  const header = challengeHeader(failure, options);
  const error = failure.status === 500 ? 'server_error' : failure.error;
  const body = JSON.stringify(error === undefined ? { error_description: failure.description } : { error, error_description: failure.description });
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (header !== undefined) headers['www-authenticate'] = header;
  return { status: failure.status, headers, body };
}
