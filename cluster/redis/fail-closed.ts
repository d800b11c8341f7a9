/**
 * A Redis call on a request's path, failing closed: its answer within
 * `ms` on `scheduler`, else what `timedOut` answers (Redis may still carry
 * the call out: the caller says what a late success means), and any failure
 * (a Redis error, a reply not of the script's shape) answered by `failed`.
 * The result never errors, so the call's pipeline never sees Redis fail.
 */
import { catchError, defer, from, map, of, timeout, type Observable, type SchedulerLike } from 'rxjs';

export interface ReplyBound {
  readonly ms: number;
  readonly scheduler: SchedulerLike;
}

export function failClosed<T>(answer: Observable<T>, bound: ReplyBound, timedOut: () => T, failed: (err: unknown) => T): Observable<T> {
  return answer.pipe(
    timeout({ first: bound.ms, scheduler: bound.scheduler, with: () => of(timedOut()) }),
    catchError((err: unknown) => of(failed(err))),
  );
}

/**
 * One Redis call of a store, started on subscription: its reply checked by
 * `handle`, bounded by `bound`; a timeout, an error or a reply `handle`
 * throws on goes to `fail`, which answers (fail closed) or throws (the
 * Observable then errors with what it threw).
 */
export function failClosedCall<R, T>(start: () => Promise<R>, handle: (reply: R) => T, bound: ReplyBound, fail: (err: unknown) => T): Observable<T> {
  return failClosed(defer(() => from(start())).pipe(map(handle)), bound, () => fail(new Error(`no answer within ${bound.ms} ms`)), fail);
}
