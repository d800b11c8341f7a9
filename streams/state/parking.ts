/**
 * The parking lot: tools/call requests waiting for the user's answer to an
 * elicitation. A parked call holds no worker, so it is capped three times:
 * per connection (`maxParkedElicitations`), per peer
 * (`maxParkedElicitationsPerPeer`; a peer is the best identity of the remote
 * client the transport has, else the connection itself) and across the
 * server (`maxParkedElicitationsTotal`).
 *
 * A parked call closes exactly once, as the first of: the owner's answer, the
 * elicitation timeout, eviction to make room for a newcomer, or the server
 * closing (`close`). Every
 * close but an approval is a deny: silence is not consent. Unsubscribing
 * (cancel, caller gone, connection gone) drops it with no answer.
 *
 * The caps and the fairness rule (peers, then connections inside a peer;
 * the oldest call of the fullest connection of the losing peer is the one
 * evicted) live in lib/approval-counts.ts, which a server shares with
 * its MRTR approval ledger so both eras count against the same caps; here a
 * connection is the holder.
 */
import { Observable, Subject, map, race, take, timer, type SchedulerLike } from 'rxjs';
import type { ConnId } from '../../lib/context.js';
import { APPROVAL_REQUEST_ID_PREFIX, approvalSchema, deniedVerdict, readElicitResult, type ElicitationVerdict } from '../../lib/approval.js';
import { DENY_DETAIL } from '../../lib/deny-details.js';
import { randomId } from '../../lib/random-id.js';
import type { JsonRpcRequest } from '../../lib/protocol/jsonrpc.js';
import type { ApprovalCounts, ApprovalHold } from '../../lib/approval-counts.js';

export type { ElicitationVerdict };

export const DETAIL_PENDING_CONNECTION = DENY_DETAIL.pendingOnConnection;
export const DETAIL_PENDING_SERVER = DENY_DETAIL.pendingOnServer;
export const DETAIL_TIMED_OUT = DENY_DETAIL.timedOut;

const denied = deniedVerdict;

interface ParkedCall {
  readonly elicitationId: string;
  readonly owner: ConnId;
  readonly peer: string;
  readonly tool: string;
  /** When it was parked, on the lot's scheduler. */
  readonly since: number;
  /** Its place in the counts it shares with MRTR approval tickets. */
  readonly hold: ApprovalHold;
  readonly answers: Subject<Record<string, unknown>>;
  /** The deny detail of a close the lot decides: an eviction, or the server closing. */
  readonly denials: Subject<string>;
}

export interface ParkingOptions {
  readonly timeoutMs: number;
  readonly scheduler: SchedulerLike;
  /** Makes the elicitation request's id; unguessable, since whoever knows it could try to answer. */
  readonly newElicitationId?: () => string;
  /**
   * The caps and their counts, shared with the MRTR approval ledger (so both
   * eras share one set of caps and one fairness rule); a connection is the holder.
   */
  readonly counts: ApprovalCounts;
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
  return randomId(APPROVAL_REQUEST_ID_PREFIX);
}

/** Reads the client's answer to an elicitation/create request. */
export function readElicitationAnswer(message: Record<string, unknown>): ElicitationVerdict {
  if ('error' in message) return denied(DENY_DETAIL.elicitationFailed);
  return readElicitResult(message.result);
}

export function elicitationRequest(id: string, tool: string, prompt: string): JsonRpcRequest {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: prompt, requestedSchema: approvalSchema(tool) } };
}

/** One parked call as `server.parked$` shows it (not its elicitation id: that is the owner's to answer with). */
export interface ParkedApproval {
  readonly connId: ConnId;
  readonly peer: string;
  readonly tool: string;
  /** When it was parked, on the server's scheduler (ms). */
  readonly since: number;
}

export class ParkingLot {
  private readonly byId = new Map<string, ParkedCall>();
  private readonly changeSubject = new Subject<void>();
  /** A call was parked or left the lot. */
  readonly changes$: Observable<void> = this.changeSubject.asObservable();
  /** How many calls each owner has parked (the shared counts may also hold MRTR tickets). */
  private readonly byOwner = new Map<ConnId, number>();
  private readonly counts: ApprovalCounts;
  private readonly newId: () => string;
  private closed = false;

  constructor(private readonly options: ParkingOptions) {
    this.newId = options.newElicitationId ?? randomElicitationId;
    this.counts = options.counts;
  }

  /** Parks a call; emits one verdict. Unsubscribe to drop it with no answer. */
  park(request: ParkRequest): Observable<ElicitationVerdict> {
    return new Observable<ElicitationVerdict>((subscriber) => {
      if (this.closed) {
        // Nobody would be left to hear the answer, and the elicitation timer would outlive the server.
        subscriber.next(denied(DENY_DETAIL.serverClosing));
        subscriber.complete();
        return;
      }
      const denials = new Subject<string>();
      let evicted: ParkedCall | undefined;
      const admission = this.counts.admit(request.owner, request.peer, (detail) => {
        // Out of the lot before the deny is heard, as a call answered or timed out would be.
        if (evicted !== undefined) this.unregister(evicted);
        denials.next(detail);
      });
      if (!admission.admitted) {
        subscriber.next(denied(admission.detail));
        subscriber.complete();
        return;
      }
      const call = this.register(request, admission.hold, denials);
      evicted = call;
      const subscription = race(
        call.answers.pipe(take(1), map(readElicitationAnswer)),
        timer(this.options.timeoutMs, this.options.scheduler).pipe(map(() => denied(DETAIL_TIMED_OUT))),
        call.denials.pipe(take(1), map(denied)),
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

  /**
   * The server closing: every parked call closes now with the deny `the server is shutting
   * down` (silence is not consent, and its caller hears why rather than waiting for a reply
   * that cannot come), its elicitation timer with it; later parks are denied the same at once.
   * Idempotent.
   */
  close(): void {
    this.closed = true;
    for (const call of [...this.byId.values()]) {
      // Out of the lot before the deny is heard, as an evicted call is.
      this.unregister(call);
      call.denials.next(DENY_DETAIL.serverClosing);
    }
  }

  parkedCount(connId?: ConnId): number {
    return connId === undefined ? this.byId.size : (this.byOwner.get(connId) ?? 0);
  }

  /** The parked calls, oldest first. */
  list(): ParkedApproval[] {
    return [...this.byId.values()].map((call) => ({ connId: call.owner, peer: call.peer, tool: call.tool, since: call.since }));
  }

  private register(request: ParkRequest, hold: ApprovalHold, denials: Subject<string>): ParkedCall {
    const call: ParkedCall = {
      elicitationId: this.newId(),
      owner: request.owner,
      peer: request.peer,
      tool: request.tool,
      since: this.options.scheduler.now(),
      hold,
      answers: new Subject(),
      denials,
    };
    this.byId.set(call.elicitationId, call);
    this.byOwner.set(call.owner, this.parkedCount(call.owner) + 1);
    if (this.changeSubject.observed) this.changeSubject.next();
    return call;
  }

  private unregister(call: ParkedCall): void {
    call.hold.release();
    if (this.byId.get(call.elicitationId) !== call) return;
    this.byId.delete(call.elicitationId);
    const left = this.parkedCount(call.owner) - 1;
    if (left === 0) this.byOwner.delete(call.owner);
    else this.byOwner.set(call.owner, left);
    if (this.changeSubject.observed) this.changeSubject.next();
  }
}
