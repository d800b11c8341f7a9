/**
 * Admission: the two in-flight bounds, checked and taken synchronously in one
 * place so two requests can never both pass a check meant for one.
 */
import type { ConnId } from '../lib/context.js';

export class Admission {
  private total = 0;
  private readonly perConnection = new Map<ConnId, number>();

  constructor(
    private readonly maxInFlight: number,
    private readonly maxPerConnection: number,
  ) {}

  /** Takes a slot for `connId`; false when a bound is reached. Each true is paired with one release. */
  tryAcquire(connId: ConnId): boolean {
    const held = this.perConnection.get(connId) ?? 0;
    if (this.total >= this.maxInFlight || held >= this.maxPerConnection) return false;
    this.total += 1;
    this.perConnection.set(connId, held + 1);
    return true;
  }

  release(connId: ConnId): void {
    this.total -= 1;
    const now = (this.perConnection.get(connId) ?? 1) - 1;
    if (now === 0) this.perConnection.delete(connId);
    else this.perConnection.set(connId, now);
  }

  inFlight(connId?: ConnId): number {
    return connId === undefined ? this.total : (this.perConnection.get(connId) ?? 0);
  }
}
