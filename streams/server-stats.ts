/**
 * What a server holds, counted: `server.stats()` now, and `server.stats$`
 * over time.
 *
 * `stats$` samples `stats()` on the server's scheduler every
 * `statsIntervalMs` and emits a value only when some count differs from the
 * last one emitted (the first at subscription). Sampled rather than pushed on
 * every change: the counts move with every call (inFlight goes up and down
 * twice per request), and a push per change would put work on the hot path
 * and a firehose on the subscriber; a sample costs one `stats()` a period per
 * subscriber and nothing when nobody watches. So a change shorter than one
 * period may go unseen; `events$` has every call.
 *
 * ```
 * statsIntervalMs = 10
 * inFlight:   0 ---- 1 ---------- 0 -- 1 - 0 ----
 * stats$:     a ---------- b ---------- (nothing: 0 -> 1 -> 0 inside one period)
 *             0            10          20
 * ```
 */
import { defer, distinctUntilChanged, interval, map, startWith, type Observable, type SchedulerLike } from 'rxjs';

/** What the server holds right now (`server.stats()`, and over time `server.stats$`): in-flight calls, parked approvals, approval tickets, connections, capability entries, outstanding requests, subscriptions and listens. */
export interface ServerStats {
  readonly inFlight: number;
  /** Legacy tools/call requests parked for an elicitation answer. */
  readonly parked: number;
  /**
   * Modern (MRTR) approval tickets awaiting their retry in this process's ledger: the
   * modern counterpart of `parked` (one held by an HTTP peer belongs to no connection, so no
   * connection's end drops it). 0 with a store shared by several processes (Redis), whose
   * tickets are the deployment's, not this process's.
   */
  readonly approvalTickets: number;
  /**
   * Tasks this process's store holds (the in-memory one; 0 without tasks):
   * a shared store's tasks are the deployment's, not this process's.
   */
  readonly tasks: number;
  /** Task handlers running on this process. */
  readonly taskRuns: number;
  readonly connections: number;
  readonly capabilityEntries: number;
  readonly outstandingRequests: number;
  /** Server-to-client requests (sampling, roots, handler elicitations) awaiting an answer. */
  readonly pendingClientRequests: number;
  /** resources/subscribe URIs held across the live connections. */
  readonly resourceSubscriptions: number;
  /** subscriptions/listen streams open. */
  readonly listens: number;
}

function sameStats(a: ServerStats, b: ServerStats): boolean {
  for (const key of Object.keys(a) as Array<keyof ServerStats>) if (a[key] !== b[key]) return false;
  return true;
}

/** `read()` at subscription, then every `periodMs` on `scheduler`, each value only when it differs from the last. */
export function statsStream(read: () => ServerStats, periodMs: number, scheduler: SchedulerLike): Observable<ServerStats> {
  return defer(() =>
    interval(periodMs, scheduler).pipe(
      startWith(-1),
      map(read),
      distinctUntilChanged(sameStats),
    ),
  );
}
