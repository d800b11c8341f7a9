/**
 * MemoryTaskStore: the default TaskStore, one process's tasks in a Map.
 *
 * - Bounded: `maxTasks` in total, `maxTasksPerOwner` per owner, and
 *   `maxRetainedBytes` for what tasks keep (results, questions, answers,
 *   estimated by retainedSize). A task that would pass a bound is refused at
 *   creation; a result that would pass it is stored as a `failed` task with
 *   the reason, so the store never grows past its bound and the client is told.
 * - Expiry needs no timer per task: every task lives `ttlMs` from its
 *   creation, so deadlines arrive in order and one DeadlineQueue timer on the
 *   server's scheduler serves them all. An expired task is forgotten, and its
 *   runner told to stop.
 * - Every operation is done synchronously on subscription, in one step: the
 *   first terminal write wins, and of racing `tasks/update`s each key is taken
 *   by exactly one. A task past its deadline is gone for every operation,
 *   even one that runs at the deadline before the timer does.
 * - Input keys are data (a client's JSON): the maps built from them have no
 *   prototype to write through, so `__proto__` is a key like any other.
 */
import { defer, EMPTY, of, Subject, type Observable } from 'rxjs';
import { DeadlineQueue, type DeadlineEntry, type Expiring } from '../deadline-queue.js';
import type { InputRequest } from '../mrtr/approval-form.js';
import type { NewTask, TaskAnswer, TaskCreation, TaskEnding, TaskPage, TaskSignal, TaskStore, TaskStoreSetup } from '../ports/task-store.js';
import { randomId } from '../random-id.js';
import { retainedSize } from '../retained-size.js';
import { isTerminal, type TaskRecord } from './task-record.js';

/** What one task costs before anything it stores: its record, its id and owner strings. A shared store charges the same. */
export const TASK_BYTES = 512;

/** What a store tells the client (a refusal, a bound's error, a cancel's status message), shared by every store so a client reads the same on any. */
export const TASK_STORE_TEXTS = {
  closing: 'the server is shutting down',
  total: (max: number): string => `the server holds its limit of ${max} tasks`,
  owner: (max: number): string => `this caller holds its limit of ${max} tasks`,
  bytes: 'the server holds its limit of task memory',
  /** The error of a task failed because its questions did not fit. */
  questionsTooLarge: { code: -32603, message: 'Internal error: the server holds its limit of task memory' },
  /** The error of a task failed because its result did not fit. */
  resultTooLarge: { code: -32603, message: 'Internal error: the result passes the server limit of task memory' },
  cancelled: 'cancelled by the client',
} as const;

class Entry implements Expiring {
  record: TaskRecord;
  /** Every key ever asked in this task: keys are never reused. */
  readonly asked = new Set<string>();
  bytes = TASK_BYTES;
  deadline: DeadlineEntry | undefined;
  /** The runner following this task, if any (one process runs a task). */
  signals: Subject<TaskSignal> | undefined;

  constructor(
    private readonly store: MemoryTaskStore,
    record: TaskRecord,
    /** Its place in creation order: what a listing's cursor names. */
    readonly seq: number,
  ) {
    this.record = record;
  }

  expire(): void {
    this.store.expired(this);
  }
}

/** The in-memory TaskStore (the default): one process's tasks, bounded, each forgotten at its TTL. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly perOwner = new Map<string, number>();
  private readonly deadlines: DeadlineQueue;
  private bytes = 0;
  private closed = false;
  private created = 0;

  constructor(private readonly setup: TaskStoreSetup) {
    this.deadlines = new DeadlineQueue(setup.scheduler, setup.ttlMs);
  }

  create(task: NewTask): Observable<TaskCreation> {
    return defer(() => of(this.createNow(task)));
  }

  get(taskId: string): Observable<TaskRecord | undefined> {
    return defer(() => of(this.live(taskId)?.record));
  }

  ask(taskId: string, requests: Readonly<Record<string, InputRequest>>): Observable<boolean> {
    return defer(() => of(this.askNow(taskId, requests)));
  }

  answer(taskId: string, responses: Readonly<Record<string, unknown>>): Observable<TaskAnswer> {
    return defer(() => of(this.answerNow(taskId, responses)));
  }

  finish(taskId: string, ending: TaskEnding): Observable<boolean> {
    return defer(() => of(this.finishNow(taskId, ending)));
  }

  cancel(taskId: string): Observable<boolean> {
    return defer(() => of(this.cancelNow(taskId)));
  }

  follow(taskId: string): Observable<TaskSignal> {
    return defer(() => {
      const entry = this.live(taskId);
      if (entry === undefined) return of<TaskSignal>({ kind: 'stop', reason: 'expired' });
      if (isTerminal(entry.record.status)) return entry.record.status === 'cancelled' ? of<TaskSignal>({ kind: 'stop', reason: 'cancelled' }) : EMPTY;
      entry.signals ??= new Subject<TaskSignal>();
      return entry.signals;
    });
  }

  list(owner: string, cursor: string | undefined, limit: number): Observable<TaskPage> {
    return defer(() => {
      const after = cursor === undefined ? 0 : Number.parseInt(cursor, 36);
      if (!Number.isSafeInteger(after) || after < 0) throw new RangeError('not a cursor of this store');
      const page: TaskRecord[] = [];
      let last = 0;
      for (const entry of this.tasks.values()) {
        if (entry.seq <= after || entry.record.owner !== owner) continue;
        if (page.length === limit) return of({ tasks: page, nextCursor: last.toString(36) });
        page.push(entry.record);
        last = entry.seq;
      }
      return of({ tasks: page });
    });
  }

  outstanding(): number {
    return this.tasks.size;
  }

  /** The estimated bytes held by stored tasks (for tests and stats). */
  retainedBytes(): number {
    return this.bytes;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deadlines.clear();
    for (const entry of this.tasks.values()) this.stop(entry, 'closed');
    this.tasks.clear();
    this.perOwner.clear();
    this.bytes = 0;
  }

  /** Create, done now (the Observable form subscribes to this). */
  createNow(task: NewTask): TaskCreation {
    if (this.closed) return { created: false, reason: TASK_STORE_TEXTS.closing };
    if (this.tasks.size >= this.setup.maxTasks) return { created: false, reason: TASK_STORE_TEXTS.total(this.setup.maxTasks) };
    const owned = this.perOwner.get(task.owner) ?? 0;
    if (owned >= this.setup.maxTasksPerOwner) return { created: false, reason: TASK_STORE_TEXTS.owner(this.setup.maxTasksPerOwner) };
    if (this.bytes + TASK_BYTES > this.setup.maxRetainedBytes) return { created: false, reason: TASK_STORE_TEXTS.bytes };
    const now = this.setup.scheduler.now();
    const record: TaskRecord = {
      taskId: randomId('task-'),
      owner: task.owner,
      method: task.method,
      name: task.name,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.setup.ttlMs,
      pollIntervalMs: this.setup.pollIntervalMs,
    };
    const entry = new Entry(this, record, ++this.created);
    entry.deadline = this.deadlines.add(entry);
    this.tasks.set(record.taskId, entry);
    this.perOwner.set(task.owner, owned + 1);
    this.bytes += TASK_BYTES;
    return { created: true, task: record };
  }

  /** Ask, done now. */
  askNow(taskId: string, requests: Readonly<Record<string, InputRequest>>): boolean {
    const entry = this.live(taskId);
    if (entry === undefined || isTerminal(entry.record.status)) return false;
    const keys = Object.keys(requests);
    if (keys.some((key) => entry.asked.has(key))) throw new Error(`task ${taskId}: an input key was asked before; keys are never reused`);
    // Nothing asked, nothing to wait for: `input_required` with no question would never be answered back to `working`.
    if (keys.length === 0) return true;
    const added = retainedSize(requests, this.setup.maxRetainedBytes);
    if (this.bytes + added > this.setup.maxRetainedBytes) {
      this.end(entry, { status: 'failed', error: TASK_STORE_TEXTS.questionsTooLarge });
      this.release(entry);
      return false;
    }
    for (const key of keys) entry.asked.add(key);
    this.charge(entry, added);
    entry.record = {
      ...entry.record,
      status: 'input_required',
      inputRequests: Object.assign(dataMap<InputRequest>(), entry.record.inputRequests, requests),
      lastUpdatedAt: this.setup.scheduler.now(),
    };
    return true;
  }

  /** Answer, done now. */
  answerNow(taskId: string, responses: Readonly<Record<string, unknown>>): TaskAnswer {
    const entry = this.live(taskId);
    if (entry === undefined) return { found: false };
    const outstanding = entry.record.inputRequests;
    if (outstanding === undefined || isTerminal(entry.record.status)) return { found: true, accepted: [] };
    const accepted = Object.keys(responses).filter((key) => Object.hasOwn(outstanding, key));
    if (accepted.length === 0) return { found: true, accepted };
    const left = dataMap<InputRequest>();
    for (const [key, request] of Object.entries(outstanding)) if (!accepted.includes(key)) left[key] = request;
    const remaining = Object.keys(left).length > 0;
    entry.record = {
      ...entry.record,
      status: remaining ? 'input_required' : 'working',
      inputRequests: remaining ? left : undefined,
      lastUpdatedAt: this.setup.scheduler.now(),
    };
    const taken = dataMap<unknown>();
    for (const key of accepted) taken[key] = responses[key];
    entry.signals?.next({ kind: 'answers', responses: taken });
    return { found: true, accepted };
  }

  /** Finish, done now. */
  finishNow(taskId: string, ending: TaskEnding): boolean {
    const entry = this.live(taskId);
    if (entry === undefined || isTerminal(entry.record.status)) return false;
    const stored = ending.status === 'completed' ? ending.result : ending.status === 'failed' ? ending.error : undefined;
    const added = stored === undefined ? 0 : retainedSize(stored, this.setup.maxRetainedBytes);
    if (this.bytes + added > this.setup.maxRetainedBytes) {
      this.end(entry, { status: 'failed', error: TASK_STORE_TEXTS.resultTooLarge });
    } else {
      this.charge(entry, added);
      this.end(entry, ending);
    }
    // The runner ended its own task: its follow ends too, with no stop (whatever the ending, a cancel of its own included).
    this.release(entry);
    return true;
  }

  /** Cancel, done now. */
  cancelNow(taskId: string): boolean {
    const entry = this.live(taskId);
    if (entry === undefined) return false;
    if (isTerminal(entry.record.status)) return true;
    this.end(entry, { status: 'cancelled', statusMessage: TASK_STORE_TEXTS.cancelled });
    this.stop(entry, 'cancelled');
    return true;
  }

  /**
   * The task, unless unknown or past its deadline. The DeadlineQueue's timer may not have run yet
   * at the deadline (an action scheduled for that same moment can run first): the task expires here then.
   */
  private live(taskId: string): Entry | undefined {
    const entry = this.tasks.get(taskId);
    if (entry === undefined) return undefined;
    if (this.setup.scheduler.now() < entry.record.createdAt + entry.record.ttlMs) return entry;
    this.expired(entry);
    return undefined;
  }

  /** The DeadlineQueue's call (or live()'s, at the deadline): the task is forgotten, its runner stopped. */
  expired(entry: Entry): void {
    this.forget(entry);
    entry.deadline = undefined;
    this.stop(entry, 'expired');
  }

  private end(entry: Entry, ending: TaskEnding): void {
    const { inputRequests: _dropped, ...rest } = entry.record;
    entry.record = {
      ...rest,
      status: ending.status,
      statusMessage: ending.status === 'completed' ? undefined : ending.statusMessage,
      result: ending.status === 'completed' ? ending.result : undefined,
      error: ending.status === 'failed' ? ending.error : undefined,
      lastUpdatedAt: this.setup.scheduler.now(),
    };
    // Whoever ends it tells the runner (finishNow and askNow end its follow, cancelNow stops it).
  }

  private stop(entry: Entry, reason: 'cancelled' | 'expired' | 'closed'): void {
    const signals = entry.signals;
    if (signals === undefined) return;
    entry.signals = undefined;
    signals.next({ kind: 'stop', reason });
    signals.complete();
  }

  private release(entry: Entry): void {
    entry.signals?.complete();
    entry.signals = undefined;
  }

  private charge(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.bytes += bytes;
  }

  private forget(entry: Entry): void {
    if (!this.tasks.delete(entry.record.taskId)) return;
    if (entry.deadline !== undefined) this.deadlines.remove(entry.deadline);
    this.bytes -= entry.bytes;
    const owned = (this.perOwner.get(entry.record.owner) ?? 1) - 1;
    if (owned === 0) this.perOwner.delete(entry.record.owner);
    else this.perOwner.set(entry.record.owner, owned);
  }
}

/** A map from keys a client chose: no prototype, so `__proto__` is stored as a key, not written through. */
function dataMap<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
