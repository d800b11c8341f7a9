/**
 * Server-to-client requests made while serving a call (sampling, roots,
 * form or URL elicitation from a handler). Each is an Observable of the
 * client's result: it errors on an error response or after its timeout, and
 * unsubscribing it (the call cancelled) forgets it and tells the client with
 * notifications/cancelled. Only the connection asked may answer.
 */
import { Observable, Subject, race, map, take, timer, type SchedulerLike } from 'rxjs';
import type { ConnId } from '../../lib/context.js';
import { randomId } from '../../lib/random-id.js';
import { ClientRequestError } from '../../lib/errors.js';
import { notification, type JsonRpcNotification, type JsonRpcRequest } from '../../lib/protocol/jsonrpc.js';

/** A handler that keeps more than this many requests open on one connection is refused. */
export const MAX_PENDING_PER_CONNECTION = 64;

interface Pending {
  readonly owner: ConnId;
  readonly answers: Subject<Record<string, unknown>>;
}

export interface ClientRequest {
  readonly owner: ConnId;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly timeoutMs: number;
  readonly push: (message: JsonRpcRequest | JsonRpcNotification) => void;
}


export class ClientRequests {
  private readonly pending = new Map<string, Pending>();
  private readonly perOwner = new Map<ConnId, number>();

  constructor(private readonly scheduler: SchedulerLike) {}

  send(request: ClientRequest): Observable<Record<string, unknown>> {
    return new Observable<Record<string, unknown>>((subscriber) => {
      if ((this.perOwner.get(request.owner) ?? 0) >= MAX_PENDING_PER_CONNECTION) {
        subscriber.error(new ClientRequestError(`too many ${request.method} requests pending on this connection`));
        return;
      }
      const id = randomId('rxmcp-req-');
      const entry: Pending = { owner: request.owner, answers: new Subject() };
      this.pending.set(id, entry);
      this.perOwner.set(request.owner, (this.perOwner.get(request.owner) ?? 0) + 1);
      const timedOut = new ClientRequestError(`${request.method} got no answer within ${request.timeoutMs} ms`);
      const subscription = race(
        entry.answers.pipe(take(1)),
        timer(request.timeoutMs, this.scheduler).pipe(
          map(() => {
            throw timedOut;
          }),
        ),
      )
        .pipe(
          map((message) => {
            if (!('error' in message)) return (message.result ?? {}) as Record<string, unknown>;
            const error = message.error as { code?: number; message?: string; data?: unknown } | undefined;
            throw new ClientRequestError(`${request.method} failed: ${error?.message ?? 'error'}`, error?.code, error?.data);
          }),
        )
        .subscribe(subscriber);
      request.push({ jsonrpc: '2.0', id, method: request.method, params: request.params });
      return () => {
        subscription.unsubscribe();
        if (this.forget(id)) {
          request.push(notification('notifications/cancelled', { requestId: id, reason: 'the call that made this request ended' }));
        }
      };
    });
  }

  /** Hands an answer to the request it names; false when `connId` was not asked such a request. */
  answer(connId: ConnId, id: unknown, message: Record<string, unknown>): boolean {
    if (typeof id !== 'string') return false;
    const entry = this.pending.get(id);
    if (entry === undefined || entry.owner !== connId) return false;
    this.forget(id);
    entry.answers.next(message);
    return true;
  }

  get size(): number {
    return this.pending.size;
  }

  private forget(id: string): boolean {
    const entry = this.pending.get(id);
    if (entry === undefined) return false;
    this.pending.delete(id);
    const count = (this.perOwner.get(entry.owner) ?? 1) - 1;
    if (count === 0) this.perOwner.delete(entry.owner);
    else this.perOwner.set(entry.owner, count);
    return true;
  }
}
