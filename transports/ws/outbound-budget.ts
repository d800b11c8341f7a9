/**
 * The server-wide bound on outbound buffering (`maxTotalBufferedBytes`):
 * every socket of one serveWebSocket reports the bytes it holds unsent
 * whenever that changes (after a send, and when a write is flushed to the
 * kernel), so the total is kept without scanning the sockets. When the total
 * is over the bound as the next message is due, the sockets holding the most
 * are evicted, biggest first, until it is within the bound again. A reader
 * that keeps up holds next to nothing, so the biggest holders are the ones
 * that stopped reading; a socket being closed no longer counts (it is gone
 * within the close grace).
 */

export interface BudgetHolder {
  /** Closes the socket; called once, after the holder has been forgotten. */
  evict(): void;
}

export class OutboundBudget {
  private total = 0;
  private readonly held = new Map<BudgetHolder, number>();

  constructor(readonly maxTotal: number) {}

  /** Bytes held unsent across the sockets, as last reported. */
  get bytes(): number {
    return this.total;
  }

  /** `holder` now holds `bytes` unsent (its socket's bufferedAmount). */
  record(holder: BudgetHolder, bytes: number): void {
    const before = this.held.get(holder) ?? 0;
    if (bytes === before) return;
    this.total += bytes - before;
    if (bytes === 0) this.held.delete(holder);
    else this.held.set(holder, bytes);
  }

  forget(holder: BudgetHolder): void {
    this.record(holder, 0);
  }

  /** Over the bound: evicts the biggest holders until the total is within it. Cheap when under it. */
  enforce(): void {
    if (this.total <= this.maxTotal) return;
    const biggestFirst = [...this.held].sort((a, b) => b[1] - a[1]);
    for (const [holder] of biggestFirst) {
      if (this.total <= this.maxTotal) return;
      this.forget(holder);
      holder.evict();
    }
  }
}
