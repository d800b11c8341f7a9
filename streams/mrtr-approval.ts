/**
 * Ledgered MRTR approvals: an authorizer's `{ ask }` on a modern request,
 * as two functions the method stages call.
 *
 * `issueApproval` (round 1): bind the arguments, take a ledger slot (caps,
 * fair eviction, shared with legacy parking) and answer `input_required`
 * with the approval form and the sealed ticket.
 *
 * `redeemApproval` (the retry): open the requestState for this very request
 * and owner, then read the answer and take the ticket, in that order:
 * - a state failing any check: `invalid` (the fixed -32602), the reason to
 *   `report` only; authentic but expired: the "timed out" deny (past its
 *   sealed expiry, plus the ledger's clockSkewMs when the ledger keeps its
 *   own clock: then the ledger's `expired` decides inside that allowance);
 * - the question changed since the ticket was issued, or the answer is
 *   missing: the same slot is reissued and the question asked again;
 * - an answer: `take` the ticket; only its one winner gets the verdict
 *   (approve, or the seed's deny details); a ticket already spent (a replay,
 *   a concurrent retry that lost) is asked again with a fresh ticket, never
 *   run twice; an evicted one gets the eviction's deny.
 *
 * Re-running the authorizer on the retry (policy may have changed) is the
 * caller's job: it passes the prompt of the ask it got now, and calls this
 * only when the decision is still an ask.
 */
import { map, of, switchMap, type Observable, type SchedulerLike } from 'rxjs';
import { DENY_DETAIL } from '../lib/deny-details.js';
import type { ApprovalEvent } from '../lib/events.js';
import { approvalRequired, promptDigest, readApprovalResponse, type InputRequiredResult } from '../lib/mrtr/approval-form.js';
import { argumentsDigest, type CanonicalLimits } from '../lib/canonical-json.js';
import type { RequestStateCodec, StateRejection } from '../lib/mrtr/request-state.js';
import type { ApprovalLedger, ApprovalTicket, TicketMiss } from '../lib/ports/approval-ledger.js';

export interface ApprovalDeps {
  readonly codec: RequestStateCodec;
  readonly ledger: ApprovalLedger;
  readonly scheduler: SchedulerLike;
  /** Where a rejected requestState's real reason goes (events$; the logger). */
  readonly report?: (event: ApprovalEvent) => void;
  readonly canonicalLimits?: CanonicalLimits;
}

/** An ask on a modern request. */
export interface ApprovalAsk {
  /** `tools/call` (the method an authorizer asks on). */
  readonly method: string;
  /** The tool name. */
  readonly target: string;
  readonly arguments: unknown;
  /** Who may answer: the connection on stdio/WebSocket, the peer or principal on HTTP. */
  readonly holder: string;
  /** The fairness key the holder belongs to. */
  readonly peer: string;
  /** The authorizer's question, as asked now. */
  readonly prompt: string;
}

export interface ApprovalRetry extends ApprovalAsk {
  /** `params.requestState` as the client sent it (anything). */
  readonly requestState: unknown;
  /** `params.inputResponses` as the client sent it (anything). */
  readonly inputResponses: unknown;
}

export type ApprovalStep =
  /** Answer this result: the question (again), with a sealed ticket. */
  | { readonly step: 'input_required'; readonly result: InputRequiredResult }
  /** Run the tool (through admission and a worker, as any call). */
  | { readonly step: 'approved' }
  /** Answer the deny result (lib/errors.ts toolDenied(tool, 'ask', detail)). */
  | { readonly step: 'denied'; readonly detail: string }
  /** Answer the fixed -32602 (lib/errors.ts invalidRequestState); `reason` is for logs only. */
  | { readonly step: 'invalid'; readonly reason: StateRejection };

function denied(detail: string): ApprovalStep {
  return { step: 'denied', detail };
}

/** Round 1: a ticket and the question, or the deny of a full server or of arguments that cannot be bound. */
export function issueApproval(deps: ApprovalDeps, ask: ApprovalAsk): Observable<ApprovalStep> {
  const digest = argumentsDigest(ask.arguments, deps.canonicalLimits);
  if (digest === null) return of(denied(DENY_DETAIL.tooLargeToPark));
  return deps.ledger.admit({ holder: ask.holder, peer: ask.peer }).pipe(
    map((admission) => (admission.admitted ? question(deps, ask, digest, admission.ticket) : denied(admission.detail))),
  );
}

/** The retry: see the file's comment for the order of checks and what each outcome means. */
export function redeemApproval(deps: ApprovalDeps, retry: ApprovalRetry): Observable<ApprovalStep> {
  const digest = argumentsDigest(retry.arguments, deps.canonicalLimits);
  const opened = deps.codec.open(
    retry.requestState,
    { kind: 'rxmcp.approve', method: retry.method, target: retry.target, argumentsDigest: digest, owner: retry.holder },
    deps.scheduler.now(),
    // A shared ledger's clock decides expiry; the sealed one (another process's clock) is a bound with its skew allowance.
    deps.ledger.clockSkewMs ?? 0,
  );
  if (!opened.ok) {
    deps.report?.({ type: 'request_state_rejected', method: retry.method, name: retry.target, reason: opened.reason });
    return of(opened.reason === 'expired' ? denied(DENY_DETAIL.timedOut) : { step: 'invalid', reason: opened.reason });
  }
  // The state opened, so the arguments digested.
  const bound = digest as string;
  const ticketId = opened.state.ticketId;
  const verdict = readApprovalResponse(retry.inputResponses);
  if (verdict === null || opened.state.promptDigest !== promptDigest(retry.prompt)) {
    return deps.ledger.reissue(ticketId).pipe(
      switchMap((reissue) => (reissue.reissued ? of(question(deps, retry, bound, reissue.ticket)) : afterMiss(deps, retry, reissue))),
    );
  }
  return deps.ledger.take(ticketId).pipe(
    switchMap((take) => {
      if (!take.taken) return afterMiss(deps, retry, take);
      return of<ApprovalStep>(verdict.approved ? { step: 'approved' } : denied(verdict.detail));
    }),
  );
}

/** A ticket the ledger does not hold: evicted, expired or a ledger that failed is a deny; spent or unknown, ask again. */
function afterMiss(deps: ApprovalDeps, ask: ApprovalAsk, miss: TicketMiss): Observable<ApprovalStep> {
  if (miss.reason === 'evicted' || miss.reason === 'unavailable') return of(denied(miss.detail));
  if (miss.reason === 'expired') return of(denied(DENY_DETAIL.timedOut));
  return issueApproval(deps, ask);
}

function question(deps: ApprovalDeps, ask: ApprovalAsk, digest: string, ticket: ApprovalTicket): ApprovalStep {
  const requestState = deps.codec.seal({
    kind: 'rxmcp.approve',
    method: ask.method,
    target: ask.target,
    argumentsDigest: digest,
    owner: ask.holder,
    ticketId: ticket.ticketId,
    issuedAt: ticket.issuedAt,
    expiresAt: ticket.expiresAt,
    promptDigest: promptDigest(ask.prompt),
  });
  return { step: 'input_required', result: approvalRequired(ask.target, ask.prompt, requestState) };
}
