/**
 * TestClock: a virtual clock for a server under test, an RxJS SchedulerLike
 * that moves only when the test says so, timer by timer, and lets the
 * Promises of `async` handlers settle between timers.
 *
 * Why not rxjs's TestScheduler or VirtualTimeScheduler alone: they run all of
 * virtual time in one synchronous flush, so the code after an `await` (a
 * microtask) never runs inside it, and an `async` handler that awaits
 * `ctx.sleep(...)` looks stuck until the callback timeout fires. Here each
 * step is `run the timers due at t` then `settle`: drain the microtasks and
 * a few macrotask turns (setImmediate), until nothing more touches the clock.
 *
 *   const clock = new TestClock();
 *   const server = createServer({ registry, scheduler: clock });
 *   const call = client.callTool('slow');   // a handler: await ctx.sleep(500)
 *   await clock.advance(500);               // runs the sleep's timer, then the handler's rest
 *   await call;
 *
 * What settling does not wait for: real I/O (a file read, a socket) and real
 * timers (`setTimeout`). Code under test keeps time through the server's
 * scheduler (`ctx.sleep`, `ctx.scheduler`), never through `setTimeout`.
 */
import type { SchedulerAction, SchedulerLike, Subscription } from 'rxjs';
import { settle, type SettleOptions } from './settle.js';
import { TimerQueue } from './timer-queue.js';

/** Options of `TestClock`. */
export interface TestClockOptions extends SettleOptions {
  /** Where virtual time starts, in ms (default 0; an epoch time such as `Date.UTC(2026, 0, 1)` suits token expiry). */
  readonly start?: number;
  /** `runAll` and `runUntil` give up after this many timers (default 10 000): a periodic timer never runs out. */
  readonly maxTimers?: number;
}

/** A virtual clock (an RxJS scheduler) that moves only when the test says so, timer by timer, letting Promises settle between timers: `advance(ms)`, `advanceTo(t)`, `settle()`, `runAll()`, `runUntil(promise)`. */
export class TestClock implements SchedulerLike {
  readonly #timers: TimerQueue;
  readonly #settle: SettleOptions;
  readonly #maxTimers: number;
  #advancing = false;

  constructor(options: TestClockOptions = {}) {
    this.#maxTimers = options.maxTimers ?? 10_000;
    this.#timers = new TimerQueue(options.start ?? 0, this.#maxTimers);
    this.#settle = options;
  }

  /** Virtual time, in ms. */
  now(): number {
    return this.#timers.now;
  }

  /** RxJS's scheduler contract: runs `work` when the clock reaches `delay` ms from now. */
  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    return this.#timers.schedule(work, delay, state);
  }

  /** How many timers are waiting. */
  get pending(): number {
    return this.#timers.size;
  }

  /** When the next timer is due, or undefined when none waits. */
  nextAt(): number | undefined {
    return this.#timers.nextAt();
  }

  /**
   * Runs what is due now and lets Promises settle, without moving time:
   * after it, an `async` handler has run up to its next wait on the clock (or
   * on an answer from the client).
   */
  async settle(): Promise<void> {
    await settle(() => {
      this.#timers.runDue();
      return this.#timers.activity;
    }, this.#settle);
  }

  /** Moves time forward by `ms`, timer by timer, settling after each one. */
  advance(ms: number): Promise<void> {
    if (!(ms >= 0)) return Promise.reject(new RangeError(`clock.advance(${ms}): a duration of 0 ms or more`));
    return this.advanceTo(this.now() + ms);
  }

  /** Moves time to `time`, running every timer due by then in order, each at its own time, settling after each. */
  async advanceTo(time: number): Promise<void> {
    if (!(time >= this.now())) throw new RangeError(`clock.advanceTo(${time}): the clock is at ${this.now()} already, and virtual time only moves forward`);
    await this.#exclusive(async () => {
      await this.settle();
      for (let next = this.nextAt(); next !== undefined && next <= time; next = this.nextAt()) await this.#step(next);
      await this.#step(time);
    });
  }

  /**
   * Runs every timer until none is left (the server's own included: a pending
   * callback timeout, an approval's expiry) and resolves with the time it
   * ends at. Throws past `maxTimers`, which a periodic timer would otherwise
   * make endless.
   */
  async runAll(): Promise<number> {
    await this.#exclusive(async () => {
      await this.settle();
      for (let steps = 0, next = this.nextAt(); next !== undefined; next = this.nextAt()) {
        if (++steps > this.#maxTimers) throw new Error(`clock.runAll(): still ${this.pending} timer(s) after ${this.#maxTimers} (a periodic timer?); use advance(ms)`);
        await this.#step(next);
      }
    });
    return this.now();
  }

  /**
   * Moves time timer by timer until `promise` settles, and resolves (or
   * rejects) as it does: for a call whose duration is the question. Rejects
   * when no timer is left and the promise is still pending: it waits on
   * something outside the clock (an input request the test has not
   * answered, real I/O).
   */
  async runUntil<T>(promise: PromiseLike<T>): Promise<T> {
    let done = false;
    const watched = Promise.resolve(promise).finally(() => {
      done = true;
    });
    watched.catch(() => {});
    await this.#exclusive(async () => {
      await this.settle();
      for (let steps = 0; !done; steps++) {
        const next = this.nextAt();
        if (next === undefined) {
          throw new Error(`clock.runUntil(): no timer left at ${this.now()} ms and the promise is still pending: it waits on something outside the clock (an unanswered input request? real I/O?)`);
        }
        if (steps >= this.#maxTimers) throw new Error(`clock.runUntil(): the promise is still pending after ${this.#maxTimers} timers`);
        await this.#step(next);
      }
    });
    return watched;
  }

  async #step(time: number): Promise<void> {
    this.#timers.now = time;
    await this.settle();
  }

  /** One advance at a time: two loops moving one clock would run timers out of order. */
  async #exclusive(body: () => Promise<void>): Promise<void> {
    if (this.#advancing) throw new Error('the clock is already being advanced: await the advance (or runAll / runUntil) in progress first');
    this.#advancing = true;
    try {
      await body();
    } finally {
      this.#advancing = false;
    }
  }
}
