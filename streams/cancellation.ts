/**
 * Cancellation by the client (notifications/cancelled): a table of the
 * calls in flight, by connection and request id, so a cancel finds its call
 * without every call listening to every cancel. Cancelling is unsubscribing
 * the call's Observable, so the handler's signal aborts and no reply goes out.
 */
import { Observable } from 'rxjs';
import type { ConnId } from '../lib/context.js';

type Cancel = () => void;

export class Cancellations {
  /** Per connection, per request id: one cancel function, or a Set when a client reuses an id in flight. */
  private readonly byConnection = new Map<ConnId, Map<unknown, Cancel | Set<Cancel>>>();

  /** Registers a call; the returned function forgets it. */
  register(connId: ConnId, requestId: unknown, cancel: Cancel): () => void {
    let calls = this.byConnection.get(connId);
    if (calls === undefined) {
      calls = new Map();
      this.byConnection.set(connId, calls);
    }
    const held = calls.get(requestId);
    if (held === undefined) calls.set(requestId, cancel);
    else if (typeof held === 'function') calls.set(requestId, new Set([held, cancel]));
    else held.add(cancel);
    return () => this.forget(connId, requestId, cancel);
  }

  /** Cancels every call in flight on `connId` under `requestId` (ids are the client's to reuse). */
  cancel(connId: ConnId, requestId: unknown): void {
    const held = this.byConnection.get(connId)?.get(requestId);
    if (held === undefined) return;
    if (typeof held === 'function') held();
    else for (const cancel of [...held]) cancel();
  }

  get size(): number {
    let count = 0;
    for (const calls of this.byConnection.values()) {
      for (const held of calls.values()) count += typeof held === 'function' ? 1 : held.size;
    }
    return count;
  }

  private forget(connId: ConnId, requestId: unknown, cancel: Cancel): void {
    const calls = this.byConnection.get(connId);
    const held = calls?.get(requestId);
    if (calls === undefined || held === undefined) return;
    if (held === cancel) calls.delete(requestId);
    else if (typeof held !== 'function') {
      held.delete(cancel);
      if (held.size === 1) calls.set(requestId, held.values().next().value as Cancel);
    }
    if (calls.size === 0) this.byConnection.delete(connId);
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
