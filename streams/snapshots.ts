/**
 * A table of the server's state as an Observable of snapshots: the current
 * one at subscription, then one after each tick in which the table changed
 * (any number of changes in one tick are one snapshot, taken at its end, as
 * list_changed is coalesced), on the server's scheduler. Bounded: a snapshot
 * is built only for a subscriber, at most once a tick, and nothing is kept
 * between them.
 *
 * ```
 * changes$:   --x-x-----(xxx)-
 * snapshots:  s-s-s-----s-----   (s: read() at the end of each tick that changed)
 * ```
 */
import { auditTime, defer, map, startWith, type Observable, type SchedulerLike } from 'rxjs';

export function snapshots<T>(changes$: Observable<unknown>, read: () => T, scheduler: SchedulerLike): Observable<T> {
  return defer(() =>
    changes$.pipe(
      auditTime(0, scheduler),
      startWith(undefined),
      map(() => read()),
    ),
  );
}
