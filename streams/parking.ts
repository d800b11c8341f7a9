/**
 * The parking lot: tools/call requests waiting for the user's answer to an
 * elicitation. A parked call holds no worker, so it is capped three times:
 * per connection (`maxParkedElicitations`), per peer
 * (`maxParkedElicitationsPerPeer`; a peer is the best identity of the remote
 * client the transport has, else the connection itself) and across the
 * server (`maxParkedElicitationsTotal`).
 *
 * A parked call closes exactly once, as the first of: the owner's answer, the
 * elicitation timeout, or eviction to make room for a newcomer. Every
 * close but an approval is a deny: silence is not consent. Unsubscribing
 * (cancel, caller gone, connection gone) drops it with no answer.
 *
 * Fairness counts peers, then connections inside a peer. On a full server,
 * an ASK from a peer holding fewer parked calls than the peer holding the
 * most closes one of that peer's calls (detail "... on this server"). A peer
 * at its own cap, or one holding as many as any on a full server, may only
 * make room among its own connections, by the seed's rule: an ASK from a
 * connection holding fewer than the fullest connection of its peer closes
 * one of that connection's. The call closed is always the oldest of the
 * fullest connection of the losing peer, and the newcomer parks in its
 * place; any other ASK at a cap is denied. So a peer that spreads calls over
 * many connections can only ever evict its own calls, never another peer's.
 */
import { Observable, Subject, map, race, take, timer, type SchedulerLike } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import { DENY_DETAIL } from '../lib/deny-details.js';
import { randomId } from '../lib/random-id.js';
import type { JsonRpcRequest } from '../lib/protocol/jsonrpc.js';

export type ElicitationVerdict = { readonly approved: true } | { readonly approved: false; readonly detail: string };

export const DETAIL_PENDING_CONNECTION = DENY_DETAIL.pendingOnConnection;
export const DETAIL_PENDING_SERVER = DENY_DETAIL.pendingOnServer;
export const DETAIL_TIMED_OUT = DENY_DETAIL.timedOut;

const APPROVED: ElicitationVerdict = { approved: true };

function denied(detail: string): ElicitationVerdict {
  return { approved: false, detail };
}

interface ParkedCall {
  readonly elicitationId: string;
  readonly owner: ConnId;
  readonly peer: string;
  readonly tool: string;
  readonly parkedAt: number;
  readonly answers: Subject<Record<string, unknown>>;
  /** The deny detail of an eviction. */
  readonly evictions: Subject<string>;
}

export interface ParkingOptions {
  readonly maxPerConnection: number;
  /** At least maxPerConnection, so a connection that is its own peer is bounded by its connection cap. */
  readonly maxPerPeer: number;
  readonly maxTotal: number;
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
  /** Makes the elicitation request's id; unguessable, since whoever knows it could try to answer. */
  readonly newElicitationId?: () => string;
}

export interface ParkRequest {
  readonly owner: ConnId;
  /** The owner's peer (ConnectOptions.peer, else the owner's id): the unit fairness counts. */
  readonly peer: string;
  readonly tool: string;
  readonly prompt: string;
  /** Delivers the elicitation/create request to the owner. */
  readonly push: (request: JsonRpcRequest) => void;
}

export function randomElicitationId(): string {
  return randomId('rxmcp-elicit-');
}

/** Reads the client's answer to an elicitation/create request. */
export function readElicitationAnswer(message: Record<string, unknown>): ElicitationVerdict {
  if ('error' in message) return denied(DENY_DETAIL.elicitationFailed);
  const result = message.result as { action?: unknown; content?: { approve?: unknown } } | undefined;
  const action = result?.action;
  if (action === 'accept') return result?.content?.approve === true ? APPROVED : denied(DENY_DETAIL.notApproved);
  if (action === 'decline') return denied(DENY_DETAIL.declined);
  if (action === 'cancel') return denied(DENY_DETAIL.cancelled);
  return denied(DENY_DETAIL.noAction);
}

export function elicitationRequest(id: string, tool: string, prompt: string): JsonRpcRequest {
  return {
    jsonrpc: '2.0',
    id,
    method: 'elicitation/create',
    params: {
      message: prompt,
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean', description: `Approve running the ${tool} tool` } },
        required: ['approve'],
      },
    },
  };
}

export class ParkingLot {
  private readonly byId = new Map<string, ParkedCall>();
  /** Per owner, in parking order: the first is the oldest. */
  private readonly byOwner = new Map<ConnId, Set<ParkedCall>>();
  /** Per peer, in parking order: the first is the oldest. */
  private readonly byPeer = new Map<string, Set<ParkedCall>>();
  private sequence = 0;
  private readonly newId: () => string;

  constructor(private readonly options: ParkingOptions) {
    this.newId = options.newElicitationId ?? randomElicitationId;
  }

  /** Parks a call; emits one verdict. Unsubscribe to drop it with no answer. */
  park(request: ParkRequest): Observable<ElicitationVerdict> {
    return new Observable<ElicitationVerdict>((subscriber) => {
      const refusal = this.makeRoomFor(request.owner, request.peer);
      if (refusal !== null) {
        subscriber.next(denied(refusal));
        subscriber.complete();
        return;
      }
      const call = this.register(request);
      const subscription = race(
        call.answers.pipe(take(1), map(readElicitationAnswer)),
        timer(this.options.timeoutMs, this.options.scheduler).pipe(map(() => denied(DETAIL_TIMED_OUT))),
        call.evictions.pipe(take(1), map(denied)),
      ).subscribe(subscriber);
      request.push(elicitationRequest(call.elicitationId, request.tool, request.prompt));
      return () => {
        subscription.unsubscribe();
        this.unregister(call);
      };
    });
  }

  /** Hands an answer to the call it names; false when `connId` does not own such a call. */
  answer(connId: ConnId, elicitationId: unknown, message: Record<string, unknown>): boolean {
    if (typeof elicitationId !== 'string') return false;
    const call = this.byId.get(elicitationId);
    if (call === undefined || call.owner !== connId) return false;
    this.unregister(call);
    call.answers.next(message);
    return true;
  }

  parkedCount(connId?: ConnId): number {
    return connId === undefined ? this.byId.size : (this.byOwner.get(connId)?.size ?? 0);
  }

  /** null when the call may park (after evicting, if fairness says so), else the deny detail. */
  private makeRoomFor(owner: ConnId, peer: string): string | null {
    const held = this.parkedCount(owner);
    if (held >= this.options.maxPerConnection) return DETAIL_PENDING_CONNECTION;
    const peerCalls = this.byPeer.get(peer);
    const peerHeld = peerCalls?.size ?? 0;
    // A peer at its cap is a full lot of its own: the seed's rule among its connections.
    if (peerHeld >= this.options.maxPerPeer) return this.evict(this.victimInOwnPeer(held, peerCalls), DETAIL_PENDING_CONNECTION);
    if (this.byId.size < this.options.maxTotal) return null;
    const fullest = this.fullestPeer();
    const victim =
      fullest !== undefined && fullest.size > peerHeld ? this.oldestOfFullestConnection(fullest) : this.victimInOwnPeer(held, peerCalls);
    return this.evict(victim, DETAIL_PENDING_SERVER);
  }

  /** Closes `victim` with `detail` so the newcomer parks (null); with no victim, the newcomer is denied with `detail`. */
  private evict(victim: ParkedCall | undefined, detail: string): string | null {
    if (victim === undefined) return detail;
    this.unregister(victim);
    victim.evictions.next(detail);
    return null;
  }

  /** Among the newcomer's own peer: the fullest connection's oldest call, when that connection holds more than the newcomer's `held`. */
  private victimInOwnPeer(held: number, peerCalls: Set<ParkedCall> | undefined): ParkedCall | undefined {
    if (peerCalls === undefined) return undefined;
    const victim = this.oldestOfFullestConnection(peerCalls);
    return victim !== undefined && this.parkedCount(victim.owner) > held ? victim : undefined;
  }

  /** The calls of the peer holding the most; ties go to the peer whose oldest call is oldest. */
  private fullestPeer(): Set<ParkedCall> | undefined {
    let best: Set<ParkedCall> | undefined;
    let bestOldest = 0;
    for (const calls of this.byPeer.values()) {
      const oldest = (calls.values().next().value as ParkedCall).parkedAt;
      if (best === undefined || calls.size > best.size || (calls.size === best.size && oldest < bestOldest)) {
        best = calls;
        bestOldest = oldest;
      }
    }
    return best;
  }

  /**
   * Inside one peer: the oldest call of the connection holding the most; ties
   * go to the oldest call. `calls` is in parking order, so the first call
   * met of the first connection with the most is the one.
   */
  private oldestOfFullestConnection(calls: Set<ParkedCall>): ParkedCall | undefined {
    let best: ParkedCall | undefined;
    let most = 0;
    for (const call of calls) {
      const size = this.parkedCount(call.owner);
      if (size > most) {
        most = size;
        best = call;
      }
    }
    return best;
  }

  private register(request: ParkRequest): ParkedCall {
    const call: ParkedCall = {
      elicitationId: this.newId(),
      owner: request.owner,
      peer: request.peer,
      tool: request.tool,
      parkedAt: this.sequence++,
      answers: new Subject(),
      evictions: new Subject(),
    };
    this.byId.set(call.elicitationId, call);
    addTo(this.byOwner, call.owner, call);
    addTo(this.byPeer, call.peer, call);
    return call;
  }

  private unregister(call: ParkedCall): void {
    if (this.byId.get(call.elicitationId) !== call) return;
    this.byId.delete(call.elicitationId);
    removeFrom(this.byOwner, call.owner, call);
    removeFrom(this.byPeer, call.peer, call);
  }
}

function addTo<K>(index: Map<K, Set<ParkedCall>>, key: K, call: ParkedCall): void {
  let calls = index.get(key);
  if (calls === undefined) {
    calls = new Set();
    index.set(key, calls);
  }
  calls.add(call);
}

function removeFrom<K>(index: Map<K, Set<ParkedCall>>, key: K, call: ParkedCall): void {
  const calls = index.get(key);
  calls?.delete(call);
  if (calls?.size === 0) index.delete(key);
}
