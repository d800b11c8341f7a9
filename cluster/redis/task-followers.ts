/**
 * TaskFollowers: the tasks this node runs, as the Redis task store's
 * `follow` sees them, and the lease that says the node is alive.
 *
 * - While any task is followed, every leaseMs/3 on the store's scheduler one
 *   task-renew script (scripts/task-renew.ts) extends the lease of every
 *   followed task, records this node's channel, and drains each task's
 *   mailbox: the answers other nodes took for it. A node that dies (or a
 *   follow that ends without a finish) stops renewing, and the next `get`
 *   after one lease fails the task.
 * - Answers and cancels also ring a doorbell on this node's channel (the
 *   task id, over the link's sharded pub/sub): a ring runs task-renew for
 *   that one task at once. The doorbell is only for speed: pub/sub is at
 *   most once, and the mailbox drained by the heartbeat is what makes every
 *   answer arrive (within leaseMs/3 if the ring was lost).
 * - The expiry is a timer here too (the time left, as Redis said at the
 *   first renewal), so the runner hears `stop: expired` on time.
 * A renewal that fails is logged (at most once per lease) and tried again
 * at the next tick; follow never errors.
 */
import { randomBytes } from 'node:crypto';
import { BehaviorSubject, EMPTY, Observable, Subject, distinctUntilChanged, exhaustMap, from, interval, map, switchMap, type Subscription } from 'rxjs';
import type { TaskSignal } from '../../lib/ports/task-store.js';
import type { RenewState } from './task-replies.js';
import type { TaskStoreSetup } from '../../lib/ports/task-store.js';

/** What TaskFollowers needs of the store: one renewal script call (bounded in time by the store). */
export interface RenewCall {
  (channel: string, taskIds: readonly string[]): Promise<RenewState[]>;
}

/** Task ids per renewal script: bounds one script's arguments and its time inside Redis. */
const RENEW_BATCH = 256;

type StopReason = Extract<TaskSignal, { kind: 'stop' }>['reason'];

class Followed {
  readonly signals = new Subject<TaskSignal>();
  expiry: Subscription | undefined;
}

/** The tasks one Redis task store follows: their lease, their mailbox and doorbell, their expiry timer. */
export class TaskFollowers {
  /** This store's doorbell channel (random per store: two stores of one process never share it). */
  readonly channel: string;
  private readonly tasks = new Map<string, Followed>();
  private readonly size = new BehaviorSubject(0);
  private readonly heartbeat: Subscription;
  private doorbell: Promise<(() => Promise<void>) | undefined> | undefined;
  private lastWarned = -Infinity;
  private closed = false;

  constructor(
    channelOf: (nodeTag: string) => string,
    private readonly subscribe: (channel: string, listener: (message: string) => void) => Promise<() => Promise<void>>,
    private readonly renew: RenewCall,
    private readonly setup: TaskStoreSetup,
    private readonly leaseMs: number,
  ) {
    this.channel = channelOf(randomBytes(9).toString('base64url'));
    const period = Math.max(Math.floor(leaseMs / 3), 1);
    // A timer only while something is followed, and one renewal at a time: a tick while Redis is slow is skipped.
    this.heartbeat = this.size
      .pipe(
        map((n) => n > 0),
        distinctUntilChanged(),
        switchMap((any) => (any ? interval(period, setup.scheduler).pipe(exhaustMap(() => from(this.look([...this.tasks.keys()])))) : EMPTY)),
      )
      .subscribe();
  }

  /** The runner's signals for `taskId` until it unsubscribes; its first renewal is run at once. */
  follow(taskId: string): Observable<TaskSignal> {
    return new Observable<TaskSignal>((subscriber) => {
      if (this.closed) {
        subscriber.next({ kind: 'stop', reason: 'closed' });
        subscriber.complete();
        return undefined;
      }
      let followed = this.tasks.get(taskId);
      if (followed === undefined) {
        followed = new Followed();
        this.tasks.set(taskId, followed);
        this.size.next(this.tasks.size);
      }
      const mine = followed;
      const subscription = mine.signals.subscribe(subscriber);
      this.listen();
      void this.look([taskId]);
      return () => {
        subscription.unsubscribe();
        // The last follower gone: no more renewals for it (a node that died looks just like this).
        if (!mine.signals.observed && this.tasks.get(taskId) === mine) this.drop(taskId, mine);
      };
    });
  }

  /** The runner ended the task itself: its follow ends, with no stop. */
  release(taskId: string): void {
    const followed = this.tasks.get(taskId);
    if (followed === undefined) return;
    this.drop(taskId, followed);
    followed.signals.complete();
  }

  /** Stops every follower with `closed`, the heartbeat and the doorbell. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.heartbeat.unsubscribe();
    for (const taskId of [...this.tasks.keys()]) this.stop(taskId, 'closed');
    const unsubscribe = await this.doorbell?.catch(() => undefined);
    await unsubscribe?.().catch(() => undefined);
  }

  /** Subscribes this store's doorbell channel once, on the first follow; a failure is logged (the heartbeat still drains). */
  private listen(): void {
    this.doorbell ??= this.subscribe(this.channel, (taskId) => {
      if (this.tasks.has(taskId)) void this.look([taskId]);
    }).catch((err: unknown) => {
      this.warn(err, 'could not subscribe the task doorbell; answers and cancels reach this node at its next renewal');
      this.doorbell = undefined;
      return undefined;
    });
  }

  /** Renews `taskIds` (in batches) and acts on what Redis says of each. */
  private async look(taskIds: readonly string[]): Promise<void> {
    for (let start = 0; start < taskIds.length && !this.closed; start += RENEW_BATCH) {
      const batch = taskIds.slice(start, start + RENEW_BATCH);
      let states: RenewState[];
      try {
        states = await this.renew(this.channel, batch);
      } catch (err) {
        this.warn(err, 'task lease renewal failed; tasks of this node fail one lease after their last renewal');
        return;
      }
      batch.forEach((taskId, i) => this.heard(taskId, states[i]!));
    }
  }

  private heard(taskId: string, state: RenewState): void {
    const followed = this.tasks.get(taskId);
    if (followed === undefined || this.closed) return;
    switch (state.kind) {
      case 'live':
        followed.expiry ??= this.setup.scheduler.schedule(() => this.stop(taskId, 'expired'), state.msLeft);
        if (Object.keys(state.answers).length > 0) followed.signals.next({ kind: 'answers', responses: state.answers });
        return;
      case 'ended':
        this.release(taskId);
        return;
      case 'cancelled':
        this.stop(taskId, 'cancelled');
        return;
      // Gone, or failed by a get that found the lease lapsed: the work must stop either way.
      default:
        this.stop(taskId, 'expired');
    }
  }

  private stop(taskId: string, reason: StopReason): void {
    const followed = this.tasks.get(taskId);
    if (followed === undefined) return;
    this.drop(taskId, followed);
    followed.signals.next({ kind: 'stop', reason });
    followed.signals.complete();
  }

  private drop(taskId: string, followed: Followed): void {
    this.tasks.delete(taskId);
    followed.expiry?.unsubscribe();
    this.size.next(this.tasks.size);
  }

  /** One line per lease at most: an outage must not turn into a log flood. */
  private warn(err: unknown, message: string): void {
    const now = this.setup.scheduler.now();
    if (now - this.lastWarned < this.leaseMs) return;
    this.lastWarned = now;
    this.setup.logger.warn({ err, store: 'redis' }, message);
  }
}
