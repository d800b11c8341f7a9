/**
 * fromCallback: a callback's value, Promise or Observable as an Observable of
 * exactly one value. An Observable answers with its last value (or
 * `undefined` when it completes empty); a synchronous value stays
 * synchronous, so a pipeline of plain callbacks never leaves the current tick.
 */
import { defaultIfEmpty, from, isObservable, of, takeLast, type Observable } from 'rxjs';
import type { CallbackReturn } from '../lib/callback.js';

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

export function fromCallback<T>(value: CallbackReturn<T>): Observable<T | undefined> {
  if (isObservable(value)) return value.pipe(takeLast(1), defaultIfEmpty(undefined));
  if (isThenable(value)) return from(value as PromiseLike<T>);
  return of(value as T);
}
