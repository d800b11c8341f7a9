/**
 * The approval question on the modern wire: an authorizer's `{ ask }` becomes
 * one MRTR input request under the key `rxmcp.approve`, the same form a
 * legacy parked call sends as elicitation/create (lib/approval.ts), and the
 * retry's `inputResponses["rxmcp.approve"]` is read exactly as the seed
 * reads the legacy answer.
 */
import { approvalSchema, readElicitResult, type ElicitationVerdict } from '../approval.js';
import { shortDigest } from '../canonical-json.js';

/** The `inputRequests` key of the approval question. */
export const APPROVAL_INPUT_KEY = 'rxmcp.approve';

/** An MRTR input request: a server-to-client request without id or jsonrpc. */
export interface InputRequest {
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  readonly params?: Record<string, unknown>;
}

/** The result that asks the client for input and to retry with `inputResponses` and the echoed `requestState`. */
export interface InputRequiredResult {
  readonly resultType: 'input_required';
  readonly inputRequests?: Readonly<Record<string, InputRequest>>;
  readonly requestState?: string;
}

export function approvalInputRequest(tool: string, prompt: string): InputRequest {
  return { method: 'elicitation/create', params: { mode: 'form', message: prompt, requestedSchema: approvalSchema(tool) } };
}

/** The approval question for `tool` with its sealed ticket. */
export function approvalRequired(tool: string, prompt: string, requestState: string): InputRequiredResult {
  return { resultType: 'input_required', inputRequests: { [APPROVAL_INPUT_KEY]: approvalInputRequest(tool, prompt) }, requestState };
}

/** Binds a ticket to its question: a retry under a changed question is asked again. */
export function promptDigest(prompt: string): string {
  return shortDigest(prompt);
}

/**
 * The verdict in a retry's `inputResponses`, or null when the approval answer
 * is missing (the client should be asked again, not denied). Extra keys are
 * ignored, as the spec asks.
 */
export function readApprovalResponse(inputResponses: unknown): ElicitationVerdict | null {
  if (typeof inputResponses !== 'object' || inputResponses === null || Array.isArray(inputResponses)) return null;
  if (!Object.hasOwn(inputResponses, APPROVAL_INPUT_KEY)) return null;
  return readElicitResult((inputResponses as Record<string, unknown>)[APPROVAL_INPUT_KEY]);
}
