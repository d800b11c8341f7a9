/**
 * Cancellation by the client (notifications/cancelled): a table of the
 * calls in flight, by connection and request id, so a cancel finds its call
 * without every call listening to every cancel. Cancelling is unsubscribing
 * the call's Observable, so the handler's signal aborts and no reply goes out.
 */
import type { ConnId } from '../../lib/context.js';

/** What a cancel reaches: an object with a method, so a call in flight needs no closure for it. */
export interface CancelTarget {
  cancel(): void;
}

type Cancel = CancelTarget;

export class Cancellations {
  /** Per connection, per request id: one target, or a Set when a client reuses an id in flight. */
  private readonly byConnection = new Map<ConnId, Map<unknown, Cancel | Set<Cancel>>>();

  /** Registers a call until `forget` is called with the same arguments. */
  register(connId: ConnId, requestId: unknown, cancel: Cancel): void {
    let calls = this.byConnection.get(connId);
    if (calls === undefined) {
      calls = new Map();
      this.byConnection.set(connId, calls);
    }
    const held = calls.get(requestId);
    if (held === undefined) calls.set(requestId, cancel);
    else if (held instanceof Set) held.add(cancel);
    else calls.set(requestId, new Set([held, cancel]));
  }

  /** Cancels every call in flight on `connId` under `requestId` (ids are the client's to reuse). */
  cancel(connId: ConnId, requestId: unknown): void {
    const held = this.byConnection.get(connId)?.get(requestId);
    if (held === undefined) return;
    if (held instanceof Set) for (const target of [...held]) target.cancel();
    else held.cancel();
  }

  forget(connId: ConnId, requestId: unknown, cancel: Cancel): void {
    const calls = this.byConnection.get(connId);
    const held = calls?.get(requestId);
    if (calls === undefined || held === undefined) return;
    if (held === cancel) calls.delete(requestId);
    else if (held instanceof Set) {
      held.delete(cancel);
      if (held.size === 1) calls.set(requestId, held.values().next().value as Cancel);
    }
    if (calls.size === 0) this.byConnection.delete(connId);
  }
}

export interface CancelScope {
  readonly table: Cancellations;
  readonly connId: ConnId;
  readonly requestId: unknown;
}

