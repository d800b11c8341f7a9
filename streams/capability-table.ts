/**
 * The client-capability table: what each connection advertised at
 * initialize, kept until its subscriber goes and capped at
 * `maxClientCapabilities`. Over the cap the oldest entry without a live
 * subscriber goes first (possibly the one just written), a live one only when
 * every entry is live. An evicted connection keeps working; it just cannot be
 * asked until it initializes again.
 */
import type { Principal } from '../lib/auth/principal.js';
import type { ConnId } from '../lib/context.js';
import { principalField, type ServerEvent } from '../lib/events.js';

interface Entry {
  readonly capabilities: Record<string, unknown>;
  /** Who initialized, for the eviction event: the connection may be gone by then. */
  readonly principal: Principal | undefined;
}

export class CapabilityTable {
  /** Map order is write order, so the first key is the oldest entry. */
  private readonly entries = new Map<ConnId, Entry>();

  constructor(
    private readonly max: number,
    private readonly isLive: (connId: ConnId) => boolean,
    private readonly emit: (event: ServerEvent) => void,
  ) {}

  set(connId: ConnId, capabilities: Record<string, unknown>, principal?: Principal): void {
    this.entries.delete(connId);
    this.entries.set(connId, { capabilities, principal });
    while (this.entries.size > this.max) this.evictOne();
  }

  get(connId: ConnId): Record<string, unknown> | undefined {
    return this.entries.get(connId)?.capabilities;
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
    const principal = this.entries.get(victim)?.principal;
    this.entries.delete(victim);
    this.emit({
      type: 'client_capabilities_evicted',
      connId: victim,
      size: this.entries.size,
      maxClientCapabilities: this.max,
      liveSubscriber,
      ...principalField(principal),
    });
  }
}
