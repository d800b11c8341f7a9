/**
 * DeadlineQueue: the callback timeouts of one server as one timer.
 *
 * Every worker's deadline is now + the same timeoutMs, so deadlines arrive
 * in order and a linked list keeps them sorted for free. One action on the
 * scheduler is armed for the earliest; when it fires, everything due expires
 * and it re-arms for the next. A worker that settles unlinks its entry (O(1));
 * an empty queue holds no timer, so it never keeps the process alive. On a
 * virtual clock each timeout still fires at exactly its own frame.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

/** What expires: an object with a method, so a worker needs no closure for its timeout. */
export interface Expiring {
  expire(): void;
}

export interface DeadlineEntry {
  readonly deadline: number;
}

interface Entry extends DeadlineEntry {
  readonly target: Expiring;
  prev: Entry | null;
  next: Entry | null;
  linked: boolean;
}

export class DeadlineQueue {
  private head: Entry | null = null;
  private tail: Entry | null = null;
  private wakeup: Subscription | null = null;

  constructor(
    private readonly scheduler: SchedulerLike,
    private readonly delayMs: number,
    private readonly keepArmed = false,
  ) {}

  /** Calls `target.expire()` after delayMs unless the entry is removed first. */
  add(target: Expiring): DeadlineEntry {
    const entry: Entry = { deadline: this.scheduler.now() + this.delayMs, target, prev: this.tail, next: null, linked: true };
    if (this.tail === null) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    if (this.wakeup === null) this.arm(entry.deadline);
    return entry;
  }

  /** Forgets an entry (its work settled first); removing twice is harmless. */
  remove(entry: DeadlineEntry): void {
    this.unlink(entry as Entry);
  }

  /** Forgets every entry and disarms the timer, nothing expiring (its owner is closing). */
  clear(): void {
    while (this.head !== null) this.unlink(this.head);
    this.disarm();
  }

  private arm(deadline: number): void {
    this.wakeup = this.scheduler.schedule(() => this.fire(), Math.max(0, deadline - this.scheduler.now()));
  }

  private fire(): void {
    this.wakeup = null;
    const now = this.scheduler.now();
    while (this.head !== null && this.head.deadline <= now) {
      const due = this.head;
      this.unlink(due);
      due.target.expire();
    }
    if (this.head !== null && this.wakeup === null) this.arm(this.head.deadline);
  }

  private unlink(entry: Entry): void {
    if (!entry.linked) return;
    entry.linked = false;
    if (entry.prev === null) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === null) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    if (this.head === null && !this.keepArmed) this.disarm();
  }

  private disarm(): void {
    if (this.wakeup === null) return;
    this.wakeup.unsubscribe();
    this.wakeup = null;
  }
}
