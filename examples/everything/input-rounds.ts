/**
 * The seam the fixture's input-required tools are written against: a handler
 * names every input it needs under the key the 2026-07-28 scenarios expect
 * (`user_name`, `capital_question`, ...), and gets the answers back under the
 * same keys.
 *
 * Today it asks through the handler context, one request after another:
 * - legacy requests: each becomes a real server-to-client request
 *   (ctx.elicit / ctx.sample / ctx.listRoots) and the continuation of this
 *   handler is the state between rounds;
 * - modern requests: the first ask rejects with InputNeededError, which the
 *   core answers -32021 until MRTR is served.
 * A legacy client that cannot be asked, or did not answer, is the tool's
 * error (isError, naming the method), never a crash.
 * When MRTR lands this is the one place to change: answer from the retry's
 * `inputResponses` under these keys, or end the round with all missing
 * `requests` as one `input_required` result (the keys and params as given).
 */
import {
  ClientCapabilityError,
  ClientRequestError,
  InputNeededError,
  ToolError,
  type CallContext,
  type ElicitParams,
  type ElicitResult,
} from '../../lib/index.js';

export type InputRequest =
  | { readonly method: 'elicitation/create'; readonly params: ElicitParams }
  | { readonly method: 'sampling/createMessage'; readonly params: Record<string, unknown> }
  | { readonly method: 'roots/list'; readonly params?: Record<string, never> };

export type InputAnswer<R extends InputRequest> = R['method'] extends 'elicitation/create'
  ? ElicitResult
  : R['method'] extends 'roots/list'
    ? { roots: Array<{ uri: string; name?: string }> }
    : Record<string, unknown>;

export type InputAnswers<T extends Record<string, InputRequest>> = { [K in keyof T]: InputAnswer<T[K]> };

async function ask(ctx: CallContext, request: InputRequest): Promise<unknown> {
  switch (request.method) {
    case 'elicitation/create':
      return ctx.elicit(request.params);
    case 'sampling/createMessage':
      return ctx.sample(request.params);
    case 'roots/list':
      return ctx.listRoots();
  }
}

/** A ToolError for a client that could not be asked or did not answer; an InputNeededError (modern) passes through. */
export function asToolError(method: string, error: unknown): unknown {
  if (error instanceof InputNeededError) return error;
  if (error instanceof ClientCapabilityError || error instanceof ClientRequestError) return new ToolError(`${method} failed: ${error.message}`, { cause: error });
  return error;
}

/** Every answer, keyed as asked. */
export async function askInputs<const T extends Record<string, InputRequest>>(ctx: CallContext, requests: T): Promise<InputAnswers<T>> {
  const answers: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    try {
      answers[key] = await ask(ctx, request);
    } catch (error) {
      throw asToolError(request.method, error);
    }
  }
  return answers as InputAnswers<T>;
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
