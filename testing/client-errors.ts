/**
 * The two ways a test client's request fails, told apart by class: the server
 * answered with a JSON-RPC error (RpcError: its code, message and data), or
 * the client itself gave up on the request (CallAbandonedError: the test
 * cancelled it, ignored every input a modern round asked for, or closed the
 * connection), so no answer will ever come.
 */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  readonly code: number;
  readonly data: unknown;

  constructor(method: string, error: { readonly code?: unknown; readonly message?: unknown; readonly data?: unknown }) {
    super(`${method} failed: ${String(error.code)} ${String(error.message)}${error.data === undefined ? '' : ` ${JSON.stringify(error.data)}`}`);
    this.code = typeof error.code === 'number' ? error.code : Number.NaN;
    this.data = error.data;
  }
}

/** Why a test client gave up on a call. */
export type AbandonReason = 'cancelled' | 'inputs-ignored' | 'closed';

/** What a test call rejects with when the test gave up on it (cancelled, its inputs ignored, the client closed). */
export class CallAbandonedError extends Error {
  override readonly name = 'CallAbandonedError';
  readonly reason: AbandonReason;
  /** For `inputs-ignored`: the server's last answer, the `input_required` result nobody retried. */
  readonly lastResult: Record<string, unknown> | undefined;

  constructor(method: string, reason: AbandonReason, lastResult?: Record<string, unknown>) {
    const why = reason === 'cancelled' ? 'the test cancelled it' : reason === 'closed' ? 'the test client was closed' : 'every input request of its round was ignored, so it was never retried';
    super(`${method}: abandoned by the test client (${why}); no answer will come`);
    this.reason = reason;
    this.lastResult = lastResult;
  }
}
