/**
 * Cancellation by the client (notifications/cancelled): a table of the
 * calls in flight, by connection and request id, so a cancel finds its call
 * without every call listening to every cancel. Cancelling is unsubscribing
 * the call's Observable, so the handler's signal aborts and no reply goes out.
 */
import { Observable } from 'rxjs';
import type { ConnId } from '../lib/context.js';

export class Cancellations {
  private readonly byConnection = new Map<ConnId, Map<unknown, Set<() => void>>>();

  /** Registers a call; the returned function forgets it. */
  register(connId: ConnId, requestId: unknown, cancel: () => void): () => void {
    let calls = this.byConnection.get(connId);
    if (calls === undefined) {
      calls = new Map();
      this.byConnection.set(connId, calls);
    }
    let sameId = calls.get(requestId);
    if (sameId === undefined) {
      sameId = new Set();
      calls.set(requestId, sameId);
    }
    sameId.add(cancel);
    const ids = calls;
    const entry = sameId;
    return () => {
      entry.delete(cancel);
      if (entry.size > 0) return;
      ids.delete(requestId);
      if (ids.size === 0 && this.byConnection.get(connId) === ids) this.byConnection.delete(connId);
    };
  }

  /** Cancels every call in flight on `connId` under `requestId` (ids are the client's to reuse). */
  cancel(connId: ConnId, requestId: unknown): void {
    const sameId = this.byConnection.get(connId)?.get(requestId);
    if (sameId === undefined) return;
    for (const cancel of [...sameId]) cancel();
  }

  get size(): number {
    let count = 0;
    for (const calls of this.byConnection.values()) for (const sameId of calls.values()) count += sameId.size;
    return count;
  }
}

/**
 * The first value of `source`, then complete; or, when `cancellations` is
 * given, nothing at all if the client cancels (connId, requestId) first.
 */
export function firstReply<T>(
  source: Observable<T>,
  cancellations?: { readonly table: Cancellations; readonly connId: ConnId; readonly requestId: unknown },
): Observable<T> {
  return new Observable<T>((subscriber) => {
    let replied = false;
    const inner = source.subscribe({
      next: (value) => {
        if (replied) return;
        replied = true;
        subscriber.next(value);
        subscriber.complete();
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    if (replied || subscriber.closed) {
      inner.unsubscribe();
      return;
    }
    const forget = cancellations?.table.register(cancellations.connId, cancellations.requestId, () => {
      inner.unsubscribe();
      subscriber.complete();
    });
    return () => {
      forget?.();
      inner.unsubscribe();
    };
  });
}
