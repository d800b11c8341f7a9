/**
 * The parking lot: tools/call requests waiting for the user's answer to an
 * elicitation. A parked call holds no worker, so it is capped twice: per
 * connection (`maxParkedElicitations`) and across the server
 * (`maxParkedElicitationsTotal`).
 *
 * A parked call closes exactly once, as the first of: the owner's answer, the
 * elicitation timeout, or eviction by a fuller connection's newcomer. Every
 * close but an approval is a deny: silence is not consent. Unsubscribing
 * (cancel, caller gone, connection gone) drops it with no answer.
 *
 * Fairness on a full server: an ASK from a connection holding fewer parked
 * calls than the connection holding the most closes that connection's oldest
 * parked call and parks in its place; any other ASK on a full server is
 * denied. A client that spreads calls over many connections crowds out only
 * itself.
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
  readonly tool: string;
  readonly parkedAt: number;
  readonly answers: Subject<Record<string, unknown>>;
  readonly evictions: Subject<void>;
}

export interface ParkingOptions {
  readonly maxPerConnection: number;
  readonly maxTotal: number;
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
  /** Makes the elicitation request's id; unguessable, since whoever knows it could try to answer. */
  readonly newElicitationId?: () => string;
}

export interface ParkRequest {
  readonly owner: ConnId;
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
  private sequence = 0;
  private readonly newId: () => string;

  constructor(private readonly options: ParkingOptions) {
    this.newId = options.newElicitationId ?? randomElicitationId;
  }

  /** Parks a call; emits one verdict. Unsubscribe to drop it with no answer. */
  park(request: ParkRequest): Observable<ElicitationVerdict> {
    return new Observable<ElicitationVerdict>((subscriber) => {
      const refusal = this.makeRoomFor(request.owner);
      if (refusal !== null) {
        subscriber.next(denied(refusal));
        subscriber.complete();
        return;
      }
      const call = this.register(request);
      const subscription = race(
        call.answers.pipe(take(1), map(readElicitationAnswer)),
        timer(this.options.timeoutMs, this.options.scheduler).pipe(map(() => denied(DETAIL_TIMED_OUT))),
        call.evictions.pipe(take(1), map(() => denied(DETAIL_PENDING_SERVER))),
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
  private makeRoomFor(owner: ConnId): string | null {
    const held = this.parkedCount(owner);
    if (held >= this.options.maxPerConnection) return DETAIL_PENDING_CONNECTION;
    if (this.byId.size < this.options.maxTotal) return null;
    const victim = this.oldestOfFullest();
    if (victim === undefined || this.parkedCount(victim.owner) <= held) return DETAIL_PENDING_SERVER;
    this.unregister(victim);
    victim.evictions.next();
    return null;
  }

  /** The oldest call of the connection holding the most; ties go to the oldest call. */
  private oldestOfFullest(): ParkedCall | undefined {
    let best: ParkedCall | undefined;
    let most = 0;
    for (const calls of this.byOwner.values()) {
      const oldest = calls.values().next().value as ParkedCall | undefined;
      if (oldest === undefined) continue;
      if (calls.size > most || (calls.size === most && best !== undefined && oldest.parkedAt < best.parkedAt)) {
        most = calls.size;
        best = oldest;
      }
    }
    return best;
  }

  private register(request: ParkRequest): ParkedCall {
    const call: ParkedCall = {
      elicitationId: this.newId(),
      owner: request.owner,
      tool: request.tool,
      parkedAt: this.sequence++,
      answers: new Subject(),
      evictions: new Subject(),
    };
    this.byId.set(call.elicitationId, call);
    let calls = this.byOwner.get(call.owner);
    if (calls === undefined) {
      calls = new Set();
      this.byOwner.set(call.owner, calls);
    }
    calls.add(call);
    return call;
  }

  private unregister(call: ParkedCall): void {
    if (this.byId.get(call.elicitationId) !== call) return;
    this.byId.delete(call.elicitationId);
    const calls = this.byOwner.get(call.owner);
    calls?.delete(call);
    if (calls?.size === 0) this.byOwner.delete(call.owner);
  }
}
