/**
 * authorize: one authorizer call as an Observable of one Verdict. A missing
 * authorizer allows; a throw (or a failed Promise/Observable) denies with
 * `authorizer_failed`; an off-contract answer denies with
 * `authorizer_contract_violation`. Synchronous authorizers stay synchronous.
 */
import { catchError, defer, map, of, type Observable } from 'rxjs';
import { ALLOW, readDecision, type Authorizer, type Verdict } from '../lib/authorizers.js';
import type { AuthorizationContext } from '../lib/context.js';
import { fromCallback } from './from-callback.js';

const FAILED: Verdict = { kind: 'deny', detail: 'authorizer_failed' };

export function authorize(
  authorizer: Authorizer | null,
  name: string,
  args: Record<string, unknown>,
  ctx: AuthorizationContext,
): Observable<Verdict> {
  if (authorizer === null) return of(ALLOW);
  return defer(() => fromCallback(authorizer(name, args, { connId: ctx.connId, transport: ctx.transport }))).pipe(
    map(readDecision),
    catchError(() => of(FAILED)),
  );
}
