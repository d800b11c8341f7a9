/**
 * A Redis call on a request's path, failing closed: its answer within
 * `ms` on `scheduler`, else what `timedOut` answers (Redis may still carry
 * the call out: the caller says what a late success means), and any failure
 * (a Redis error, a reply not of the script's shape) answered by `failed`.
 * The result never errors, so the call's pipeline never sees Redis fail.
 */
import { catchError, of, timeout, type Observable, type SchedulerLike } from 'rxjs';

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
