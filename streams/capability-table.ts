/**
 * The client-capability table: what each connection advertised at
 * initialize, kept until its subscriber goes and capped at
 * `maxClientCapabilities`. Over the cap the oldest entry without a live
 * subscriber goes first (possibly the one just written), a live one only when
 * every entry is live. An evicted connection keeps working; it just cannot be
 * asked until it initializes again.
 */
import type { ConnId } from '../lib/context.js';
import type { ServerEvent } from '../lib/events.js';

export class CapabilityTable {
  /** Map order is write order, so the first key is the oldest entry. */
  private readonly entries = new Map<ConnId, Record<string, unknown>>();

  constructor(
    private readonly max: number,
    private readonly isLive: (connId: ConnId) => boolean,
    private readonly emit: (event: ServerEvent) => void,
  ) {}

  set(connId: ConnId, capabilities: Record<string, unknown>): void {
    this.entries.delete(connId);
    this.entries.set(connId, capabilities);
    while (this.entries.size > this.max) this.evictOne();
  }

  get(connId: ConnId): Record<string, unknown> | undefined {
    return this.entries.get(connId);
  }

  delete(connId: ConnId): void {
    this.entries.delete(connId);
  }

  get size(): number {
    return this.entries.size;
  }

  private evictOne(): void {
    let victim: ConnId | undefined;
    for (const connId of this.entries.keys()) {
      if (!this.isLive(connId)) {
        victim = connId;
        break;
      }
    }
    const liveSubscriber = victim === undefined;
    victim ??= this.entries.keys().next().value as ConnId;
    this.entries.delete(victim);
    this.emit({
      type: 'client_capabilities_evicted',
      connId: victim,
      size: this.entries.size,
      maxClientCapabilities: this.max,
      liveSubscriber,
    });
  }
}
