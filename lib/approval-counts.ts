/**
 * ApprovalCounts: every approval the server holds open for a person's
 * answer, whatever its era: a legacy parked call (streams/state/parking.ts) and a
 * modern MRTR approval ticket (lib/ports/approval-ledger.ts) count here
 * together, so a client cannot double its share by switching eras.
 *
 * An approval has a holder (who may answer it: a connection, or on HTTP the
 * peer or principal) and a peer (the fairness key, ConnectOptions.peer or
 * better). Three caps: per holder (`maxParkedElicitations`), per peer
 * (`maxParkedElicitationsPerPeer`) and in total
 * (`maxParkedElicitationsTotal`).
 *
 * `admit` is the one synchronous check-and-insert. Fairness counts peers,
 * then holders inside a peer. On a full server, a newcomer whose peer holds
 * fewer than the peer holding the most closes one of that peer's approvals
 * (detail "... on this server"). A peer at its own cap, or one holding as
 * many as any on a full server, may only make room among its own holders: a
 * newcomer whose holder holds fewer than the fullest holder of its peer
 * closes one of that holder's. The approval closed is always the oldest of
 * the fullest holder of the losing peer; any other newcomer at a cap is
 * refused. So a peer spreading approvals over many holders only ever evicts
 * its own.
 */
import { DENY_DETAIL } from './deny-details.js';
import { addToIndex, removeFromIndex } from './set-index.js';

/** The three parking caps an approval ledger counts against: per holder (`maxParkedElicitations`), per peer and in total. */
export interface ApprovalCaps {
  readonly maxPerHolder: number;
  /** At least maxPerHolder, so a holder that is its own peer is bounded by its holder cap. */
  readonly maxPerPeer: number;
  readonly maxTotal: number;
}

/** One held approval. Release it when it closes by itself (answer, timeout, drop); releasing twice is harmless. */
export interface ApprovalHold {
  readonly holder: string;
  readonly peer: string;
  release(): void;
}

export type ApprovalAdmission = { readonly admitted: true; readonly hold: ApprovalHold } | { readonly admitted: false; readonly detail: string };

class Held implements ApprovalHold {
  held = true;
  constructor(
    private readonly counts: ApprovalCounts,
    readonly holder: string,
    readonly peer: string,
    /** Admission order: the smallest is the oldest. */
    readonly sequence: number,
    readonly onEvicted: (detail: string) => void,
  ) {}

  release(): void {
    this.counts.release(this);
  }
}

export class ApprovalCounts {
  /** Per holder, in admission order: the first is the oldest. */
  private readonly byHolder = new Map<string, Set<Held>>();
  /** Per peer, in admission order: the first is the oldest. */
  private readonly byPeer = new Map<string, Set<Held>>();
  private size = 0;
  private sequence = 0;

  constructor(readonly caps: ApprovalCaps) {}

  /**
   * Holds one more approval for `holder` in `peer`, evicting one by the
   * fairness rule when that is the newcomer's right (the victim's
   * `onEvicted` is called with its deny detail, after the newcomer is in);
   * otherwise the deny detail of the refusal.
   */
  admit(holder: string, peer: string, onEvicted: (detail: string) => void): ApprovalAdmission {
    const room = this.makeRoomFor(holder, peer);
    if (typeof room === 'string') return { admitted: false, detail: room };
    const hold = new Held(this, holder, peer, this.sequence++, onEvicted);
    this.size += 1;
    addToIndex(this.byHolder, holder, hold);
    addToIndex(this.byPeer, peer, hold);
    // The victim hears last, so whatever its closing does runs against consistent counts.
    if (room !== null) room.victim.onEvicted(room.detail);
    return { admitted: true, hold };
  }

  heldBy(holder: string): number {
    return this.byHolder.get(holder)?.size ?? 0;
  }

  heldByPeer(peer: string): number {
    return this.byPeer.get(peer)?.size ?? 0;
  }

  total(): number {
    return this.size;
  }

  /** @internal ApprovalHold.release. */
  release(hold: Held): void {
    if (!hold.held) return;
    hold.held = false;
    this.size -= 1;
    removeFromIndex(this.byHolder, hold.holder, hold);
    removeFromIndex(this.byPeer, hold.peer, hold);
  }

  /** null: room without evicting; a victim (already released) to tell; or the refusal's detail. */
  private makeRoomFor(holder: string, peer: string): null | { victim: Held; detail: string } | string {
    const held = this.heldBy(holder);
    if (held >= this.caps.maxPerHolder) return DENY_DETAIL.pendingOnConnection;
    const peerHolds = this.byPeer.get(peer);
    const peerHeld = peerHolds?.size ?? 0;
    // A peer at its cap is a full server of its own: the rule among its holders.
    if (peerHeld >= this.caps.maxPerPeer) return this.evict(this.victimInOwnPeer(held, peerHolds), DENY_DETAIL.pendingOnConnection);
    if (this.size < this.caps.maxTotal) return null;
    const fullest = this.fullestPeer();
    const victim =
      fullest !== undefined && fullest.size > peerHeld ? this.oldestOfFullestHolder(fullest) : this.victimInOwnPeer(held, peerHolds);
    return this.evict(victim, DENY_DETAIL.pendingOnServer);
  }

  private evict(victim: Held | undefined, detail: string): { victim: Held; detail: string } | string {
    if (victim === undefined) return detail;
    this.release(victim);
    return { victim, detail };
  }

  /** Inside the newcomer's own peer: the fullest holder's oldest, when that holder holds more than the newcomer's `held`. */
  private victimInOwnPeer(held: number, peerHolds: Set<Held> | undefined): Held | undefined {
    if (peerHolds === undefined) return undefined;
    const victim = this.oldestOfFullestHolder(peerHolds);
    return victim !== undefined && this.heldBy(victim.holder) > held ? victim : undefined;
  }

  /** The holds of the peer holding the most; ties go to the peer whose oldest is oldest. */
  private fullestPeer(): Set<Held> | undefined {
    let best: Set<Held> | undefined;
    let bestOldest = 0;
    for (const holds of this.byPeer.values()) {
      const oldest = (holds.values().next().value as Held).sequence;
      if (best === undefined || holds.size > best.size || (holds.size === best.size && oldest < bestOldest)) {
        best = holds;
        bestOldest = oldest;
      }
    }
    return best;
  }

  /**
   * Inside one peer: the oldest hold of the holder holding the most; ties go
   * to the oldest. `holds` is in admission order, so the first hold met of
   * the first holder with the most is the one.
   */
  private oldestOfFullestHolder(holds: Set<Held>): Held | undefined {
    let best: Held | undefined;
    let most = 0;
    for (const hold of holds) {
      const size = this.heldBy(hold.holder);
      if (size > most) {
        most = size;
        best = hold;
      }
    }
    return best;
  }
}
