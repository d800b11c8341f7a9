/**
 * Admission: the in-flight bounds, checked and taken synchronously in one
 * place so two requests can never both pass a check meant for one.
 *
 * Three counts: the server's total (`maxInFlight`), each connection's share
 * (`maxInFlightPerConnection`) and each peer's share (`maxInFlightPerPeer`),
 * so a peer that opens many connections still holds one peer's share. A
 * connection with no peer of its own (its peer is its connection id: stdio,
 * in-memory, direct callers) is counted once, by its connection share: it
 * would otherwise be squeezed by a second, smaller bound on the same thing.
 *
 * These bounds are this process's own. Caps that must hold across processes
 * are a PermitPool's (lib/ports/permits.ts), asked by the worker after a slot here
 * is taken; `permits` is undefined when none is configured.
 */
import type { ConnId } from '../../lib/context.js';
import type { PermitPool } from '../../lib/ports/permits.js';

export class Admission {
  private total = 0;
  private readonly perConnection = new Map<ConnId, number>();
  /** Only peers given by a transport (peer !== connId). */
  private readonly perPeer = new Map<string, number>();

  constructor(
    private readonly maxInFlight: number,
    private readonly maxPerConnection: number,
    private readonly maxPerPeer: number,
    readonly permits: PermitPool | undefined = undefined,
  ) {}

  /** Takes a slot for `connId` of `peer`; false when a bound is reached. Each true is paired with one release with the same arguments. */
  tryAcquire(connId: ConnId, peer: string): boolean {
    const held = this.perConnection.get(connId) ?? 0;
    if (this.total >= this.maxInFlight || held >= this.maxPerConnection) return false;
    if (peer !== connId) {
      const peerHeld = this.perPeer.get(peer) ?? 0;
      if (peerHeld >= this.maxPerPeer) return false;
      this.perPeer.set(peer, peerHeld + 1);
    }
    this.total += 1;
    this.perConnection.set(connId, held + 1);
    return true;
  }

  release(connId: ConnId, peer: string): void {
    this.total -= 1;
    decrement(this.perConnection, connId);
    if (peer !== connId) decrement(this.perPeer, peer);
  }

  inFlight(connId?: ConnId): number {
    return connId === undefined ? this.total : (this.perConnection.get(connId) ?? 0);
  }
}

/**
 * How many keys at zero a count table keeps. A key whose count falls to zero
 * stays while the table is small, so its next call updates an entry instead
 * of inserting one: deleting and re-inserting a Map key on every call was a
 * tenth of a synchronous call's pipeline CPU (`node --cpu-prof
 * dist/bench/micro/eras.js --mode core`). Past this many keys a zero is
 * deleted, so direct callers naming ever new connection ids leave at most
 * this many entries behind.
 */
export const IDLE_KEYS_KEPT = 1024;

function decrement<K>(counts: Map<K, number>, key: K): void {
  const now = (counts.get(key) ?? 1) - 1;
  if (now === 0 && counts.size > IDLE_KEYS_KEPT) counts.delete(key);
  else counts.set(key, now);
}
