/**
 * LazyAbort: an AbortController made only when someone reads its signal.
 * Most handlers never look at `ctx.signal`, and an AbortController per call
 * is a measurable share of a small call's cost; aborting before the signal
 * exists makes it born aborted, so no reader can miss a cancellation.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: unknown;
  private abortedEarly = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedEarly) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortedEarly || this.controller?.signal.aborted === true;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    if (this.controller !== undefined) {
      this.controller.abort(reason);
      return;
    }
    this.abortedEarly = true;
    this.reason = reason;
  }
}
