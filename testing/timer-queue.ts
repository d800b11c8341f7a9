/**
 * TimerQueue: the timers of a TestClock in due order, and virtual now. It
 * only keeps order and runs what is due; when time moves, and how Promises
 * settle between timers, is TestClock's business. Its `activity` count moves
 * on every schedule, cancel and run, which is how settling tells quiet.
 */
import { Subscription, type SchedulerAction } from 'rxjs';

type Work<T> = (this: SchedulerAction<T>, state?: T) => void;

/** One scheduled piece of work; `schedule` from inside it re-queues it (what `interval` does). */
export class ClockAction<T> extends Subscription implements SchedulerAction<T> {
  due = 0;
  queued = false;
  private state: T | undefined;

  constructor(
    private readonly queue: TimerQueue,
    private readonly work: Work<T>,
  ) {
    super();
    this.add(() => queue.cancel(this));
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.state = state;
    this.queue.enqueue(this, delay);
    return this;
  }

  run(): void {
    this.work.call(this, this.state);
  }
}

export class TimerQueue {
  now: number;
  activity = 0;
  private readonly actions: ClockAction<any>[] = [];

  constructor(
    start: number,
    /** Timers run by one runDue at most: a timer re-scheduling itself at 0 ms would never yield. */
    private readonly maxPerInstant: number,
  ) {
    this.now = start;
  }

  get size(): number {
    return this.actions.length;
  }

  nextAt(): number | undefined {
    return this.actions[0]?.due;
  }

  schedule<T>(work: Work<T>, delay: number, state: T | undefined): Subscription {
    return new ClockAction<T>(this, work).schedule(state, delay);
  }

  /** Queues `action` `delay` ms from now, after every timer already due at that time. */
  enqueue(action: ClockAction<any>, delay: number): void {
    if (action.queued) this.remove(action);
    action.due = this.now + (Number.isFinite(delay) && delay > 0 ? delay : 0);
    action.queued = true;
    let at = this.actions.length;
    while (at > 0 && this.actions[at - 1]!.due > action.due) at--;
    this.actions.splice(at, 0, action);
    this.activity++;
  }

  cancel(action: ClockAction<any>): void {
    if (!action.queued) return;
    this.remove(action);
    this.activity++;
  }

  /** Runs, in order, every timer due at or before now, those they schedule for now included. */
  runDue(): void {
    for (let ran = 0, action = this.actions[0]; action !== undefined && action.due <= this.now; action = this.actions[0]) {
      if (++ran > this.maxPerInstant) throw new Error(`the test clock ran ${this.maxPerInstant} timers at ${this.now} ms without time moving (a timer re-scheduling itself at 0 ms?)`);
      this.actions.shift();
      action.queued = false;
      this.activity++;
      action.run();
    }
  }

  private remove(action: ClockAction<any>): void {
    const at = this.actions.indexOf(action);
    if (at >= 0) this.actions.splice(at, 1);
    action.queued = false;
  }
}
