/**
 * The approval question rxmcp asks for an authorizer's `{ ask }`, and how it
 * reads the answer: one form and one reading for both eras, whether the
 * question goes out as a parked call's elicitation/create (legacy) or as an
 * MRTR input request (modern).
 */
import { DENY_DETAIL } from './deny-details.js';

/**
 * How the id of a legacy approval's elicitation/create begins (the rest is
 * random): what tells a client, or a test, the server's own approval
 * question from a handler's `ctx.elicit`.
 */
export const APPROVAL_REQUEST_ID_PREFIX = 'rxmcp-elicit-';

export type ElicitationVerdict = { readonly approved: true } | { readonly approved: false; readonly detail: string };

const APPROVED: ElicitationVerdict = { approved: true };

export function deniedVerdict(detail: string): ElicitationVerdict {
  return { approved: false, detail };
}

/** The form: one required boolean, `approve`. */
export function approvalSchema(tool: string): Record<string, unknown> {
  return {
    type: 'object',
    properties: { approve: { type: 'boolean', description: `Approve running the ${tool} tool` } },
    required: ['approve'],
  };
}

/**
 * Reads an elicitation result: only `accept` with `content.approve === true`
 * approves; anything else is a deny saying how the question ended.
 */
export function readElicitResult(result: unknown): ElicitationVerdict {
  const answer = (typeof result === 'object' && result !== null ? result : undefined) as
    | { action?: unknown; content?: unknown }
    | undefined;
  const action = answer?.action;
  if (action === 'accept') {
    const content = answer?.content;
    const approve = typeof content === 'object' && content !== null ? (content as { approve?: unknown }).approve : undefined;
    return approve === true ? APPROVED : deniedVerdict(DENY_DETAIL.notApproved);
  }
  if (action === 'decline') return deniedVerdict(DENY_DETAIL.declined);
  if (action === 'cancel') return deniedVerdict(DENY_DETAIL.cancelled);
  return deniedVerdict(DENY_DETAIL.noAction);
}
