/**
 * PendingInput: one thing the server asked the test client, waiting for the
 * test to answer it, ignore it, or let the clock run out on it. The same
 * object in both eras, so one test reads the same either way: on a legacy
 * connection it is a real server-to-client request (elicitation/create,
 * sampling/createMessage, roots/list) answered with a JSON-RPC response; on
 * a modern one it is an entry of an `input_required` result's
 * `inputRequests`, answered in the retry's `inputResponses`.
 *
 * `kind` tells the server's own approval question (an authorizer's
 * `{ ask }`) from a handler's `ctx.elicit`, `ctx.sample` and `ctx.listRoots`.
 */
import type { JsonRpcId } from '../lib/protocol/jsonrpc.js';

/** What the server asks a test client: an approval, an elicitation, a sampling request or the roots. */
export type InputKind = 'approval' | 'elicitation' | 'sampling' | 'roots';

/** The client request behind a pending input. */
export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/**
 * How a PendingInput ended: an answer (a result or, legacy only, an error),
 * nothing (ignored by the test), or withdrawn (the server cancelled its
 * request, or the test cancelled the call it belonged to).
 */
export type InputOutcome =
  | { readonly type: 'result'; readonly result: Record<string, unknown> }
  | { readonly type: 'error'; readonly code: number; readonly message: string }
  | { readonly type: 'ignored' }
  | { readonly type: 'withdrawn' };

export interface PendingInputInit {
  readonly kind: InputKind;
  readonly method: InputMethod;
  readonly params: Record<string, unknown>;
  readonly key: string;
  readonly requestId: JsonRpcId | undefined;
  readonly at: number;
  readonly era: 'legacy' | 'modern';
  /** Sends the outcome the era's way; called once. */
  readonly settle: (outcome: InputOutcome) => void;
}

let withdraw: (input: PendingInput) => void;

/** The test client's (not the package's): the question was taken back, so nothing is sent for it. */
export function withdrawInput(input: PendingInput): void {
  withdraw(input);
}

/** A question the server asked a test client, the same in both eras: answer it with `approve()`, `accept(content)`, `decline()`, `cancel()`, `respond(result)`, `fail(...)`, or `ignore()` it. */
export class PendingInput {
  readonly kind: InputKind;
  readonly method: InputMethod;
  /** The request's params as the client received them (for an elicitation: `message`, `requestedSchema`). */
  readonly params: Record<string, unknown>;
  /** Legacy: the server's request id. Modern: the `inputRequests` key (`rxmcp.approve`, `rxmcp.<n>`, or a handler's own). */
  readonly key: string;
  /** The id of the client's request this input belongs to, when known. */
  readonly requestId: JsonRpcId | undefined;
  /** When it arrived, on the test clock. */
  readonly at: number;
  readonly #era: 'legacy' | 'modern';
  readonly #settle: (outcome: InputOutcome) => void;
  #outcome: InputOutcome | undefined;

  constructor(init: PendingInputInit) {
    this.kind = init.kind;
    this.method = init.method;
    this.params = init.params;
    this.key = init.key;
    this.requestId = init.requestId;
    this.at = init.at;
    this.#era = init.era;
    this.#settle = init.settle;
  }

  /** The question's text: an elicitation's `message` (the authorizer's prompt, for an approval). */
  get message(): string | undefined {
    return typeof this.params.message === 'string' ? this.params.message : undefined;
  }

  /** Undefined while it waits; then how it ended. */
  get outcome(): InputOutcome | undefined {
    return this.#outcome;
  }

  /** Answers with exactly this result. */
  respond(result: Record<string, unknown>): void {
    this.#end({ type: 'result', result });
  }

  /** An approval's yes: `accept` with `{ approve: true }`. */
  approve(): void {
    this.#expectElicitation('approve');
    this.respond({ action: 'accept', content: { approve: true } });
  }

  /** An elicitation's `accept`, with the form's content. */
  accept(content: Record<string, unknown> = {}): void {
    this.#expectElicitation('accept');
    this.respond({ action: 'accept', content });
  }

  /** An elicitation's or approval's `decline`. */
  decline(): void {
    this.#expectElicitation('decline');
    this.respond({ action: 'decline' });
  }

  /** An elicitation's or approval's `cancel`. */
  cancel(): void {
    this.#expectElicitation('cancel');
    this.respond({ action: 'cancel' });
  }

  /** Legacy only: a JSON-RPC error response (the modern wire has no way to answer an input with an error). */
  fail(code = -32603, message = 'the test client failed this request'): void {
    if (this.#era === 'modern') throw new Error(`${this.#describe()}: a modern input request cannot be answered with an error; respond, decline or ignore it`);
    this.#end({ type: 'error', code, message });
  }

  /**
   * Never answers: legacy, the server's own timeout (elicitationTimeoutMs,
   * clientRequestTimeoutMs) decides; modern, no retry is sent for it (when
   * every input of the round is ignored, the call ends with CallAbandonedError).
   */
  ignore(): void {
    this.#end({ type: 'ignored' });
  }

  static {
    withdraw = (input) => {
      if (input.#outcome === undefined) input.#finish({ type: 'withdrawn' });
    };
  }

  #end(outcome: InputOutcome): void {
    if (this.#outcome !== undefined) throw new Error(`${this.#describe()} was already ${this.#outcome.type === 'result' || this.#outcome.type === 'error' ? 'answered' : this.#outcome.type}`);
    this.#finish(outcome);
  }

  #finish(outcome: InputOutcome): void {
    this.#outcome = outcome;
    this.#settle(outcome);
  }

  #expectElicitation(what: string): void {
    if (this.method !== 'elicitation/create') throw new Error(`${this.#describe()}: ${what}() answers an elicitation; use respond(result)`);
  }

  #describe(): string {
    return `${this.kind} ${JSON.stringify(this.key)} (${this.method})`;
  }
}
