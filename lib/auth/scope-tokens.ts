/**
 * Scope tokens as a definition declares them (`requiredScopes`): checked at
 * registration, before any request reads them. Apart from target-scopes.ts,
 * which reads the registry, so the registry can check what it is given
 * without importing what reads it.
 */
import { ConfigError } from '../errors.js';

/** NQCHAR (RFC 6749 A.4), what a scope token may hold. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value);
}

/** Validates a `requiredScopes` value (an array of scope tokens); a ConfigError names `option` and whose it is. */
export function checkRequiredScopes(option: string, owner: string, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every(isScopeToken)) {
    throw new ConfigError(option, `${owner}: ${option} must be an array of OAuth scope tokens (no spaces, " or \\)`);
  }
}
