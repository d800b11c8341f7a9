/**
 * Permits: the in-flight caps that must hold across processes (cluster-wide,
 * per principal), asked of a shared pool after a call has passed this
 * process's own admission. The process's bounds (maxInFlight, the per
 * connection and per peer shares) stay local: they guard this process's
 * workers, which no other process can see or use.
 *
 * Contract of a pool's `permit(owner)` (owner: the caller's fairness key,
 * `principal:<key>` when authenticated, else the peer, else the connection):
 * - it emits one answer: granted, or busy with the scope of the cap that
 *   refused (`cluster` for the pool's total, `principal` for the owner's);
 * - a granted permit is held for as long as the subscription lives, so the
 *   Observable does not complete after granting; unsubscribing releases it,
 *   also when the grant arrives after the unsubscription (a slow grant that
 *   lost its race with a cancel or a timeout is given back, not leaked);
 * - it should not error; the server treats an error as busy `cluster`
 *   (fail closed).
 * `permitPool` builds that contract from a plain acquire and release.
 */
import { AsyncSubject, NEVER, catchError, concat, concatMap, from, of, take, using, type ObservableInput, type Observable, type Unsubscribable } from 'rxjs';

/** Which cluster-wide cap refused a permit. */
export type PermitScope = 'cluster' | 'principal';

/** A permit pool's answer: granted, or refused with the cap's scope. */
export type PermitAnswer = { readonly granted: true } | { readonly granted: false; readonly scope: PermitScope };

/** In-flight caps shared with other processes (the `clusterPermits` option), asked after this process's own bounds. */
export interface PermitPool {
  /** One permit for one call of `owner`; see the contract above. */
  permit(owner: string): Observable<PermitAnswer>;
}

/** The granted answer, shared. */
export const PERMIT_GRANTED: PermitAnswer = Object.freeze({ granted: true });
const BUSY: Readonly<Record<PermitScope, PermitAnswer>> = Object.freeze({
  cluster: Object.freeze({ granted: false, scope: 'cluster' }),
  principal: Object.freeze({ granted: false, scope: 'principal' }),
});

/** The busy answer for `scope` (one shared object per scope). */
export function permitBusy(scope: PermitScope): PermitAnswer {
  return BUSY[scope];
}

/** What one acquire answered: a grant (whatever the pool needs to give it back) or a refusal. */
export type Acquired<G> = { readonly granted: true; readonly grant: G } | { readonly granted: false; readonly scope: PermitScope };

const REFUSED_CLUSTER: Acquired<never> = Object.freeze({ granted: false, scope: 'cluster' });

export function isPermitPool(value: unknown): value is PermitPool {
  return typeof value === 'object' && value !== null && typeof (value as PermitPool).permit === 'function';
}

/**
 * One permit's life: the acquire runs to its answer whatever the caller
 * does (its answer is what must be given back), and disposal gives back a
 * grant once the answer is known, now or later.
 */
class Lease<G> implements Unsubscribable {
  readonly answer = new AsyncSubject<Acquired<G>>();

  constructor(
    acquire: ObservableInput<Acquired<G>>,
    private readonly release: (grant: G) => void,
  ) {
    // An acquire that fails is a refusal: fail closed.
    from(acquire)
      .pipe(
        take(1),
        catchError(() => of(REFUSED_CLUSTER as Acquired<G>)),
      )
      .subscribe(this.answer);
  }

  unsubscribe(): void {
    this.answer.subscribe((acquired) => {
      if (acquired.granted) this.release(acquired.grant);
    });
  }
}

/**
 * A PermitPool from `acquire` (one Observable or Promise of one answer,
 * which must settle in bounded time: its answer is awaited even after the
 * caller has gone) and `release` (called once for every grant, when the
 * permit's subscription ends, however it ends).
 */
export function permitPool<G>(acquire: (owner: string) => ObservableInput<Acquired<G>>, release: (grant: G) => void): PermitPool {
  return {
    permit: (owner) =>
      using(
        () => new Lease(acquire(owner), release),
        (lease) =>
          (lease as Lease<G>).answer.pipe(
            // Granted: hold (never complete) until the caller lets go; busy: done.
            concatMap((acquired) => (acquired.granted ? concat(of(PERMIT_GRANTED), NEVER) : of(permitBusy(acquired.scope)))),
          ),
      ),
  };
}
