/**
 * One keep-alive clock for every SSE stream of a handler: each stream added
 * ticks every `periodMs` from the moment it was added, exactly as if it had
 * its own interval, but the handler holds a single timer on the scheduler
 * (for the earliest tick due), not one per stream. With nothing added, no
 * timer is pending at all.
 *
 * Every stream has the same period, so the due times come in the order the
 * streams were added: the queue is kept sorted by appending, and a tick
 * that runs late is put back in its place.
 *
 * When the last stream stops, the timer stays armed until it fires (and is
 * then not armed again while nothing is live): one request at a time on
 * Streamable HTTP opens and ends a POST stream per request, and each would
 * otherwise arm and clear a timer of its own. `close()` disarms it at once.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

interface Ticker {
  due: number;
  readonly tick: () => void;
  live: boolean;
}

export class KeepAliveClock {
  /** Sorted by due time from `head` on; removed tickers stay, dead, until they come up or are dropped. */
  private queue: Ticker[] = [];
  private head = 0;
  private live = 0;
  private timer: Subscription | undefined;
  private timerDue = Infinity;

  constructor(
    private readonly periodMs: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Calls `tick` every periodMs from now; the returned function stops it (idempotent). */
  add(tick: () => void): () => void {
    const ticker: Ticker = { due: this.scheduler.now() + this.periodMs, tick, live: true };
    this.insert(ticker);
    this.live += 1;
    this.arm();
    return () => {
      if (!ticker.live) return;
      ticker.live = false;
      this.live -= 1;
      if (this.live === 0) this.forgetAll();
      else if (this.queue.length - this.head > 2 * this.live + 64) this.dropDead();
    };
  }

  private insert(ticker: Ticker): void {
    let at = this.queue.length;
    while (at > this.head && this.queue[at - 1]!.due > ticker.due) at -= 1;
    if (at === this.queue.length) this.queue.push(ticker);
    else this.queue.splice(at, 0, ticker);
  }

  /** The timer is set for the first tick due (the head may be dead: it is skipped when the timer fires). */
  private arm(): void {
    const first = this.queue[this.head];
    if (first === undefined || first.due >= this.timerDue) return;
    this.timer?.unsubscribe();
    this.timerDue = first.due;
    this.timer = this.scheduler.schedule(() => this.fire(), Math.max(0, first.due - this.scheduler.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = this.scheduler.now();
    // Only what was due when the timer fired: a ticker put back for later waits for the next one.
    const due: Ticker[] = [];
    while (this.head < this.queue.length && this.queue[this.head]!.due <= now) due.push(this.queue[this.head++]!);
    this.compact();
    for (const ticker of due) {
      if (!ticker.live) continue;
      ticker.due += this.periodMs;
      this.insert(ticker);
      ticker.tick();
    }
    this.arm();
  }

  /** Drops the dead front once it is most of the array. */
  private compact(): void {
    if (this.head < 64 || this.head * 2 < this.queue.length) return;
    this.queue = this.queue.slice(this.head);
    this.head = 0;
  }

  /** Streams that ended long before their next tick would pile up otherwise: amortised over the removals. */
  private dropDead(): void {
    this.queue = this.queue.slice(this.head).filter((ticker) => ticker.live);
    this.head = 0;
  }

  /** Nothing is live: the queue empties; the timer, if armed, stays until it fires and finds nothing to tick. */
  private forgetAll(): void {
    this.queue.length = 0;
    this.head = 0;
  }

  /** The handler is closing: no timer, no queue (a stream added later still gets its ticks). */
  close(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.timerDue = Infinity;
    for (const ticker of this.queue) ticker.live = false;
    this.live = 0;
    this.forgetAll();
  }
}
