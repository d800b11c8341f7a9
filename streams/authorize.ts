/**
 * authorize: one authorizer call as one Verdict, now when the authorizer
 * answers synchronously, later when it answers with a Promise or an
 * Observable. A missing authorizer allows; a throw (or a failed Promise or
 * Observable) denies with `authorizer_failed`; an off-contract answer denies
 * with `authorizer_contract_violation` (the thrown error rides on the
 * verdict, for the log). The authorizer sees a fresh `{connId, transport}`
 * (and `principal` when the call has one) and nothing else, made here from
 * the caller (a request's scope): one object per authorizer call.
 */
import { ALLOW, readDecision, type Authorizer, type Verdict } from '../lib/authorizers.js';
import { DENY_DETAIL } from '../lib/deny-details.js';
import { attempt, eventualOf, thenEventual, type Eventual } from './worker.js';
import { authorizationContextOf, type Caller } from './principal-shapes.js';

export function authorize(
  authorizer: Authorizer | null,
  name: string,
  args: Record<string, unknown>,
  caller: Caller,
): Eventual<Verdict> {
  if (authorizer === null) return ALLOW;
  return attempt(
    () => thenEventual(eventualOf(authorizer(name, args, authorizationContextOf(caller))), readDecision),
    (error): Verdict => ({ kind: 'deny', detail: DENY_DETAIL.authorizerFailed, failure: error }),
  );
}

