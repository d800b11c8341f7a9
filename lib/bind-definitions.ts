/**
 * The life of one binding (`registry.bindTools(defs$)` and its siblings):
 * an Observable of whole sets of definitions, each value applied to the
 * registry by difference (keyed-table.ts), for as long as the returned
 * Subscription is open.
 *
 * ```
 * defs$:        -a----b------|
 * registry:     -[a]--[b]----[b] (completing keeps the last set)
 * unsubscribe:                    ! -> b removed
 * ```
 *
 * - A set refused (a bad definition, a key held by someone else, a value
 *   that is not iterable) changes nothing. While `bind*` is still running
 *   (a BehaviorSubject's or `of(...)`'s synchronous values) the refusal is
 *   thrown from `bind*`, which then binds nothing: a mistake in a static
 *   set fails where it is written. A later one is logged, and the binding
 *   keeps its last set and goes on with the next value: a source that
 *   follows an application's state is not ended by one bad state.
 * - The source completing keeps the last set; the Subscription stays open,
 *   and unsubscribing it still removes what the binding holds.
 * - The source failing removes what the binding holds and ends it, logged:
 *   a set nobody keeps current any more is not served as if it were.
 */
import { isObservable, Subscription, type Observable } from 'rxjs';
import type { Binding } from './keyed-table.js';

export interface BindTarget<D> {
  /** Applies one whole set, all or none (throws when refused). */
  apply(binding: Binding, defs: Iterable<D>): void;
  /** Removes everything the binding holds. */
  release(binding: Binding): void;
  /** A refusal or a failure after `bind*` returned: nobody is left to throw to. */
  report(method: string, error: unknown, what: 'refused' | 'failed'): void;
}

function iterable<D>(method: string, value: unknown): Iterable<D> {
  if (typeof value === 'object' && value !== null && typeof (value as Iterable<D>)[Symbol.iterator] === 'function') return value as Iterable<D>;
  throw new TypeError(`${method}: each value must be an iterable (an array, a Set, a Map's values) of definitions, got ${value === null ? 'null' : typeof value}`);
}

export function bindDefinitions<D>(method: string, source$: Observable<Iterable<D>>, target: BindTarget<D>): Subscription {
  if (!isObservable(source$)) throw new TypeError(`${method} needs an Observable of definition sets`);
  const binding: Binding = { method };
  const bound = new Subscription(() => target.release(binding));
  let returned = false;
  let refusal: { error: unknown } | undefined;
  const subscription = source$.subscribe({
    next: (defs) => {
      if (refusal !== undefined || bound.closed) return;
      try {
        target.apply(binding, iterable<D>(method, defs));
      } catch (error) {
        if (!returned) refusal = { error };
        else target.report(method, error, 'refused');
      }
    },
    error: (error: unknown) => {
      if (!returned) refusal ??= { error };
      else target.report(method, error, 'failed');
      bound.unsubscribe();
    },
  });
  bound.add(subscription);
  returned = true;
  if (refusal !== undefined) {
    bound.unsubscribe();
    throw refusal.error;
  }
  return bound;
}
