/**
 * The per-operation scope gate of the HTTP router: for a `tools/call`,
 * `resources/read`, `resources/subscribe` or `prompts/get` whose target
 * declares `requiredScopes`, a principal lacking any of them gets 403
 * `insufficient_scope` before the response starts (before any SSE stream
 * opens), so the client can step up: re-authorize with the challenged
 * scopes and send the request again. The challenge names all the scopes the
 * operation needs, the endpoint's and the target's (MCP 2026-07-28: one
 * challenge, not one scope at a time).
 *
 * It runs after authentication and after the session check, so an unknown
 * target (which declares nothing) falls through to the server's own error:
 * no existence oracle for strangers.
 */
import { insufficientScope, type AuthFailure } from '../../lib/auth/authenticator.js';
import type { Principal } from '../../lib/auth/principal.js';
import { missingScopes } from '../../lib/auth/scopes.js';
import { targetScopes } from '../../lib/auth/target-scopes.js';
import type { Registry } from '../../lib/registry.js';
import type { ResolvedAuth } from '../auth-options.js';

export function scopeGate(
  auth: ResolvedAuth,
  registry: Registry,
  principal: Principal,
  method: string,
  params: Record<string, unknown> | undefined,
): AuthFailure | undefined {
  const target = targetScopes(registry, method, params);
  if (target.length === 0 || missingScopes(principal, target).length === 0) return undefined;
  return insufficientScope([...new Set([...auth.requiredScopes, ...target])], `${method} needs more scopes than the token has`);
}
