/**
 * The seam the fixture's input-required tools are written against: a handler
 * names every input it needs under the key the 2026-07-28 scenarios expect
 * (`user_name`, `capital_question`, ...), and gets the answers back under the
 * same keys. A thin alias of ctx.askInputs:
 * - modern requests: the whole batch is one ctx.askInputs call, so one
 *   `input_required` round asks every key still unanswered (keys and params
 *   as given) and the retry's `inputResponses` answer them;
 * - legacy requests: each input is a real server-to-client request, one
 *   ctx.askInputs per key in the order given (the order the scenarios
 *   document), so a client that cannot be asked, or did not answer, is the
 *   tool's error naming the method, never a crash.
 */
import {
  ClientCapabilityError,
  ClientRequestError,
  InputNeededError,
  ToolError,
  type CallContext,
  type InputRequest,
  type InputResponses,
} from '../../lib/index.js';

export type { InputRequest } from '../../lib/index.js';

/** A ToolError for a client that could not be asked or did not answer; an InputNeededError (modern) passes through. */
export function asToolError(method: string, error: unknown): unknown {
  if (error instanceof InputNeededError) return error;
  if (error instanceof ClientCapabilityError || error instanceof ClientRequestError) return new ToolError(`${method} failed: ${error.message}`, { cause: error });
  return error;
}

/** Every answer, keyed as asked. */
export async function askInputs<const T extends Readonly<Record<string, InputRequest>>>(ctx: CallContext, requests: T): Promise<InputResponses<T>> {
  if (ctx.modern !== undefined) return ctx.askInputs(requests);
  const answers: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    try {
      answers[key] = (await ctx.askInputs({ [key]: request }))[key];
    } catch (error) {
      throw asToolError(request.method, error);
    }
  }
  return answers as InputResponses<T>;
}

/**
 * Whether this request's client declared `capability`: from the envelope on
 * a modern request; unknown (undefined) on a legacy one, where the handler
 * context is the only one that knows, so the caller just asks.
 */
export function declaresCapability(ctx: CallContext, capability: 'elicitation' | 'sampling' | 'roots'): boolean | undefined {
  if (ctx.modern === undefined) return undefined;
  const value = ctx.modern.clientCapabilities[capability];
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
