/**
 * worker: runs one callback body under the in-flight bounds and the callback
 * timeout, turns every way it can end into one WorkerOutcome, and hands that
 * to `then` for the reply: the spine's admit and work steps for every method
 * that runs a user's callback. With it, in this file, what a worker is made
 * of: the answer it waits for (Eventual: here now, or Later) and its body's
 * signal (LazyAbort).
 *
 * ```
 * admitted, answer now:    a|          -> A|      (no timer armed)
 * admitted, answer later:  ----a|      -> ----A|
 * past the deadline:       --------    -> ---T|   T the callback_timeout reply; the signal aborts
 * above a bound:                       -> B|      B server_busy; the body never starts
 * unsubscribed:            --^         -> --      the signal aborts, the slot goes back
 * ```
 *
 * - above either bound: `server_busy`, and the body is never started;
 * - an answer that is here now settles at once (no timer is started for
 *   work already done); a Later one settles when it arrives, or with
 *   `callback_timeout` at its deadline, whichever is first;
 * - a throw or error is `callback_crashed`;
 * - the body's AbortSignal aborts when the worker ends without a value
 *   (timeout, or unsubscription: every kind of cancellation).
 * The slot is released as soon as the outcome is known, before it travels on,
 * unless the reply keeps it (an AdmissionKeeper, held-admission.ts): then
 * the reply gives it back, or a worker started with it (`heldAdmission`)
 * runs under it without asking again, and gives it back when it ends.
 *
 * With a PermitPool (admission.permits), a call that got a local slot asks
 * the pool for a permit before its body starts; a refusal is `server_busy`
 * with the pool's scope (the local slot given back), and the permit is held
 * exactly as long as the slot: the callback timeout runs from the ask, and
 * every way the worker ends unsubscribes the permit, which releases it.
 */
import { Subscription, Observable, type Subscriber, type TeardownLogic, type Unsubscribable, of } from 'rxjs';
import type { ConnId } from '../lib/context.js';
import type { CallbackFailure } from '../lib/errors.js';
import type { PermitAnswer, PermitPool, PermitScope } from '../lib/ports/permits.js';
import type { Admission } from './state/admission.js';
import type { DeadlineEntry, DeadlineQueue } from '../lib/deadline-queue.js';
import { HeldAdmission, type AdmissionKeeper } from './held-admission.js';
import { DirectSource, isReplyStream, openSource, type DirectObserver, type ReplyStream } from './reply-stream.js';

export type WorkerOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly reason: CallbackFailure;
      readonly error?: unknown;
      /** Set when a PermitPool refused (`server_busy`): which of its caps. */
      readonly scope?: PermitScope;
      /** Set on a `callback_timeout` whose answer was an Observable: the values it emitted without completing. */
      readonly unfinished?: number;
    };

export interface WorkerOptions {
  readonly admission: Admission;
  readonly connId: ConnId;
  /** The connection's peer: admission counts its share. */
  readonly peer: string;
  /** Where the callback timeout is kept (one per server). */
  readonly deadlines: DeadlineQueue;
}

export class CallCancelledError extends Error {
  override name = 'CallCancelledError';
}

const BUSY: WorkerOutcome<never> = { ok: false, reason: 'server_busy' };
const TIMED_OUT: WorkerOutcome<never> = { ok: false, reason: 'callback_timeout' };
const BUSY_CLUSTER: WorkerOutcome<never> = { ok: false, reason: 'server_busy', scope: 'cluster' };
const BUSY_PRINCIPAL: WorkerOutcome<never> = { ok: false, reason: 'server_busy', scope: 'principal' };

/** A pool's refusal as an outcome; anything but a principal refusal (an off-contract answer included) is the cluster's. */
function refusal(answer: PermitAnswer | undefined): WorkerOutcome<never> {
  return answer !== null && typeof answer === 'object' && !answer.granted && answer.scope === 'principal' ? BUSY_PRINCIPAL : BUSY_CLUSTER;
}

/**
 * One worker's life, as one object: a call should not pay for a handful of
 * closures (this runs for every tools/call and read, and 1000 of them may be
 * in flight at once). It is also the subscription's teardown.
 */
class WorkerRun<T, R> implements AdmissionKeeper {
  protected settled = false;
  private succeeded = false;
  /** This run still holds its admission: not yet given back, nor kept by its reply. */
  private holding = true;
  private onward: Unsubscribable | undefined;
  protected reading: Reading | undefined;
  protected deadline: DeadlineEntry | undefined;
  readonly abort = new LazyAbort();

  constructor(
    private readonly subscriber: DirectObserver<R>,
    protected readonly options: WorkerSource<T, R>,
  ) {}

  start(answer: Eventual<T>): void {
    // Before following: an answer that settles at once must find its deadline to remove.
    if (isLater(answer)) this.deadline = this.options.deadlines.add(this);
    this.follow(answer);
  }

  /** Settles on an answer given now, or reads one that comes later. */
  protected follow(answer: Eventual<T>): void {
    if (isLater(answer)) this.reading = settleEventual(answer, this);
    else this.settle({ ok: true, value: answer });
  }

  /** The callback timeout (the DeadlineQueue's target); an Observable answer that emitted but never completed is named. */
  expire(): void {
    const seen = this.reading?.seen ?? 0;
    this.settle(seen === 0 ? TIMED_OUT : { ok: false, reason: 'callback_timeout', unfinished: seen });
  }

  /** The answer arrived (settleEventual's observer). */
  answer(value: T): void {
    this.settle({ ok: true, value });
  }

  /** The answer failed (settleEventual's observer). */
  failure(error: unknown): void {
    this.settle({ ok: false, reason: 'callback_crashed', error });
  }

  settle(outcome: WorkerOutcome<T>): void {
    if (this.settled) return;
    this.end();
    this.succeeded = outcome.ok;
    if (!outcome.ok) {
      this.abort.abort(new CallCancelledError(outcome.reason));
      this.reading?.cancel();
    }
    let reply: R | ReplyStream<R>;
    try {
      // The reply may keep the admission for what it starts next; it is made before anything travels on.
      reply = this.options.reply(outcome, this);
    } finally {
      this.letGo();
    }
    this.onward = deliver(this.subscriber, reply);
  }

  /** Teardown (RxJS calls it as an Unsubscribable): cancellation of every kind. */
  unsubscribe(): void {
    this.onward?.unsubscribe();
    if (this.settled) return;
    this.end();
    this.letGo();
    this.reading?.cancel();
    if (!this.succeeded) this.abort.abort(new CallCancelledError('cancelled'));
  }

  /** AdmissionKeeper: only while the reply is being made (settled, not yet given back). */
  keep(): HeldAdmission {
    if (!this.settled || !this.holding) throw new Error("a worker's admission can be kept only by its reply, once");
    this.holding = false;
    return this.handOver();
  }

  private letGo(): void {
    if (!this.holding) return;
    this.holding = false;
    this.release();
  }

  /** The deadline, exactly once (the admission is release's). */
  protected end(): void {
    this.settled = true;
    if (this.deadline !== undefined) this.options.deadlines.remove(this.deadline);
  }

  /** Gives back what admitted this run (once, through letGo, unless the reply kept it). */
  protected release(): void {
    this.options.admission.release(this.options.connId, this.options.peer);
  }

  /** What admitted this run, as the reply's to give back. */
  protected handOver(): HeldAdmission {
    return new HeldAdmission(this.options.admission, this.options.connId, this.options.peer, undefined);
  }
}

/**
 * A worker that also holds a PermitPool's permit. A subclass, so a server
 * without a pool pays nothing for it: not a field, not a branch per step.
 */
class PermittedRun<T, R> extends WorkerRun<T, R> {
  /** The permit's subscription; closing it (in release, or by whoever kept it) releases the permit, granted now or later. */
  private readonly permit = new Subscription();

  /** Asks `pool`; the body starts on the grant. The deadline runs from now: a slow pool is part of the call's time. */
  ask(pool: PermitPool): void {
    this.deadline = this.options.deadlines.add(this);
    let permit$: Observable<PermitAnswer>;
    try {
      permit$ = pool.permit(this.options.peer);
    } catch (error) {
      this.settle({ ok: false, reason: 'server_busy', scope: 'cluster', error });
      return;
    }
    // Added, not assigned: a grant answered during subscribe may end the run before subscribe returns.
    this.permit.add(
      permit$.subscribe({
        next: (answer: PermitAnswer) => (answer?.granted === true ? this.begin() : this.settle(refusal(answer))),
        // A pool that fails refuses: fail closed.
        error: (error: unknown) => this.settle({ ok: false, reason: 'server_busy', scope: 'cluster', error }),
      }),
    );
  }

  private begin(): void {
    // A pool that answers twice does not run the body twice.
    if (this.settled || this.reading !== undefined) return;
    let answer: Eventual<T>;
    try {
      answer = this.options.work(this.abort);
    } catch (error) {
      this.failure(error);
      return;
    }
    this.follow(answer);
  }

  protected override release(): void {
    super.release();
    this.permit.unsubscribe();
  }

  protected override handOver(): HeldAdmission {
    return new HeldAdmission(this.options.admission, this.options.connId, this.options.peer, this.permit);
  }
}

/**
 * A worker started under an admission another worker's reply kept (an
 * approved MRTR run): no slot or permit is asked, and ending gives back the
 * one it was handed.
 */
class HeldRun<T, R> extends WorkerRun<T, R> {
  constructor(
    subscriber: DirectObserver<R>,
    options: WorkerSource<T, R>,
    private readonly held: HeldAdmission,
  ) {
    super(subscriber, options);
  }

  protected override release(): void {
    this.held.unsubscribe();
  }

  protected override handOver(): HeldAdmission {
    return this.held;
  }
}

/**
 * Hands the reply on; a ReplyStream reply (a parked call, a tool an approval
 * starts) is followed, opened directly when it is a DirectSource, and what
 * tears it down returned.
 */
function deliver<R>(subscriber: DirectObserver<R>, reply: R | ReplyStream<R>): Unsubscribable | undefined {
  if (isReplyStream(reply)) return openSource(reply as ReplyStream<R>, subscriber);
  subscriber.next(reply);
  subscriber.complete();
  return undefined;
}

/**
 * The stream a worker is, and what it needs for the whole call: its
 * bounds (WorkerOptions), its body (`work`) and its reply (`reply`). A
 * stage that starts a worker for every request subclasses it, so a waiting
 * call holds one object for all three instead of closures, their context
 * and an options object. A DirectSource: its FirstReply starts it without
 * an RxJS Subscriber per waiting call (reply-stream.ts); anything else
 * subscribes it through the interop, once per subscription, each one a
 * worker of its own.
 */
export abstract class WorkerSource<T, R> extends DirectSource<R> implements WorkerOptions {
  abstract readonly admission: Admission;
  abstract readonly connId: ConnId;
  abstract readonly peer: string;
  abstract readonly deadlines: DeadlineQueue;

  /** The callback's work; the signal aborts when the worker ends without a value. */
  abstract work(abort: LazyAbort): Eventual<T>;

  /**
   * The reply the outcome becomes (a ReplyStream one is followed: a parked
   * call). `admission` is the run's, for a reply that keeps it for what it
   * starts (see held-admission.ts); absent when no run was admitted.
   */
  abstract reply(outcome: WorkerOutcome<T>, admission?: AdmissionKeeper): R | ReplyStream<R>;

  /** An admission kept by an earlier worker's reply, to run under instead of asking for one; none by default. */
  heldAdmission(): HeldAdmission | undefined {
    return undefined;
  }

  open(observer: DirectObserver<R>): Unsubscribable | undefined {
    try {
      return this.run(observer);
    } catch (error) {
      // The DirectSource contract: a throw while starting (a `reply` that throws) is an error, as subscribe would make it.
      observer.error(error);
      return undefined;
    }
  }

  private run(observer: DirectObserver<R>): Unsubscribable | undefined {
    const held = this.heldAdmission();
    if (held !== undefined) {
      // Given back already (its holder was cancelled): nothing admits this run any more.
      return held.closed ? deliver(observer, this.reply(BUSY)) : this.begin(new HeldRun<T, R>(observer, this, held));
    }
    if (!this.admission.tryAcquire(this.connId, this.peer)) return deliver(observer, this.reply(BUSY));
    const pool = this.admission.permits;
    if (pool !== undefined) {
      const permitted = new PermittedRun<T, R>(observer, this);
      permitted.ask(pool);
      return permitted;
    }
    return this.begin(new WorkerRun<T, R>(observer, this));
  }

  /** Starts the body of an admitted run. */
  private begin(run: WorkerRun<T, R>): WorkerRun<T, R> {
    let answer: Eventual<T>;
    try {
      answer = this.work(run.abort);
    } catch (error) {
      run.failure(error);
      return run;
    }
    run.start(answer);
    return run;
  }
}

/** A worker made of functions, for the stages that are not on every call's path. */
class FunctionWorker<T, R> extends WorkerSource<T, R> {
  constructor(
    private readonly options: WorkerOptions,
    private readonly body: (abort: LazyAbort) => Eventual<T>,
    private readonly then: (outcome: WorkerOutcome<T>) => R | ReplyStream<R>,
    private readonly held: HeldAdmission | undefined,
  ) {
    super();
  }

  override heldAdmission(): HeldAdmission | undefined {
    return this.held;
  }

  get admission(): Admission {
    return this.options.admission;
  }

  get connId(): ConnId {
    return this.options.connId;
  }

  get peer(): string {
    return this.options.peer;
  }

  get deadlines(): DeadlineQueue {
    return this.options.deadlines;
  }

  work(abort: LazyAbort): Eventual<T> {
    return this.body(abort);
  }

  reply(outcome: WorkerOutcome<T>): R | ReplyStream<R> {
    return this.then(outcome);
  }
}

/**
 * A worker of `body` and `then`, as a ReplyStream (a DirectSource: a method handler returns it as it is;
 * hand it elsewhere with asObservable); with `held`, it runs under that kept admission instead of asking for one.
 */
export function worker<T, R>(
  options: WorkerOptions,
  body: (abort: LazyAbort) => Eventual<T>,
  then: (outcome: WorkerOutcome<T>) => R | ReplyStream<R>,
  held?: HeldAdmission,
): ReplyStream<R> {
  return new FunctionWorker(options, body, then, held);
}

/*
 * Eventual: an answer that is here now (a plain value) or Later.
 *
 * A Later is a callback's Promise or Observable (or one of our DirectSources:
 * any ReplyStream) plus the functions that turn its last value (or its
 * error) into the answer. Composing on a Later composes those functions; it
 * stacks no operators. Only the one subscriber that finally needs the
 * answer (a worker) subscribes, once, so an
 * asynchronous call costs one subscription however many stages shaped its
 * answer, and a synchronous call costs none. An Observable callback answers
 * with its LAST value (`undefined` when it completes empty); a Promise with
 * its resolution.
 */
export class Later<T> {
  constructor(
    /** What the callback answered. */
    readonly source: ReplyStream<unknown> | PromiseLike<unknown>,
    /** Reads the last value (a throw is the answer's error). Called as a method of its Later, as onError is. */
    readonly onDone: (last: unknown) => Eventual<T>,
    /** Reads the source's error (rethrow to keep it an error). */
    readonly onError: (error: unknown) => Eventual<T>,
    /** Sees every value first; false means it is not a candidate for the answer (a progress update). */
    readonly onValue: ((value: unknown) => boolean) | null = null,
  ) {}
}

export type Eventual<T> = T | Later<T>;

function rethrow(error: unknown): never {
  throw error;
}

function identity(value: unknown): unknown {
  return value;
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Whether a callback answered with something to wait for (a Promise, an Observable or a DirectSource). */
export function isLaterAnswer(answer: unknown): answer is ReplyStream<unknown> | PromiseLike<unknown> {
  return isReplyStream(answer) || isThenable(answer);
}

export function isLater<T>(value: Eventual<T>): value is Later<T> {
  return value instanceof Later;
}

/** A callback's answer as an Eventual: a plain value as it is, a Promise or an Observable Later. */
export function eventualOf<T>(answer: T | PromiseLike<T> | ReplyStream<T>, onValue: ((value: unknown) => boolean) | null = null): Eventual<T | undefined> {
  if (isLaterAnswer(answer)) {
    return new Later<T | undefined>(answer, identity as (last: unknown) => T | undefined, rethrow, onValue);
  }
  return answer;
}

/** Applies `next` to the answer, now if it is here; `next` may itself answer Later. */
export function thenEventual<T, R>(value: Eventual<T>, next: (value: T) => Eventual<R>): Eventual<R> {
  if (!(value instanceof Later)) return next(value);
  return new Later<R>(
    value.source,
    (last) => thenEventual(value.onDone(last), next),
    (error) => thenEventual(value.onError(error), next),
    value.onValue,
  );
}

/**
 * Runs `run`; a throw, now or later (a failed Promise or Observable, or a
 * throw while reading its value), goes to `recover`.
 */
export function attempt<T>(run: () => Eventual<T>, recover: (error: unknown) => Eventual<T>): Eventual<T> {
  let result: Eventual<T>;
  try {
    result = run();
  } catch (error) {
    return recover(error);
  }
  if (!(result instanceof Later)) return result;
  const later = result;
  return new Later<T>(
    later.source,
    (last) => attempt(() => later.onDone(last), recover),
    (error) => attempt(() => later.onError(error), recover),
    later.onValue,
  );
}

/**
 * Reads an Eventual: `answer` or `failure` is called exactly once, now
 * when it is here; the returned function cancels (unsubscribes the source).
 */
export interface EventualObserver<T> {
  answer(value: T): void;
  failure(error: unknown): void;
}

/** A reading under way: what cancels it, and how many values the source it reads has emitted so far. */
export interface Reading {
  cancel(): void;
  /**
   * Values the Observable being read emitted (progress updates included):
   * a reading cancelled at its deadline after some had come was an
   * Observable that emitted but never completed, which the timeout names.
   */
  readonly seen: number;
}

/**
 * Reads one Eventual for one observer. An object with methods rather than
 * closures: one exists per asynchronous call in flight, and a thousand may be.
 * It is its own RxJS observer (next/error/complete) for the current source.
 */
class LaterReader<T> implements Reading {
  /** A field of the reader every waiting call has already: counting costs no object. */
  seen = 0;
  private cancelled = false;
  private current: Later<T> | undefined;
  private last: unknown;
  private subscription: { unsubscribe(): void } | undefined;
  private step = 0;

  constructor(private readonly observer: EventualObserver<T>) {}

  read(later: Later<T>): void {
    const mine = ++this.step;
    this.current = later;
    this.last = undefined;
    this.seen = 0;
    const source = later.source;
    if (isReplyStream(source)) {
      const subscription = openSource(source, this);
      // A nested Later read synchronously while subscribing owns the subscription now.
      if (this.step === mine) this.subscription = subscription;
      return;
    }
    source.then(
      (value) => {
        if (this.step === mine) this.finish(later, true, value);
      },
      (error: unknown) => {
        if (this.step === mine) this.finish(later, false, error);
      },
    );
  }

  next(value: unknown): void {
    this.seen += 1;
    const filter = this.current?.onValue ?? null;
    if (filter === null || filter(value)) this.last = value;
  }

  error(error: unknown): void {
    this.finish(this.current!, false, error);
  }

  complete(): void {
    this.finish(this.current!, true, this.last);
  }

  cancel(): void {
    this.cancelled = true;
    this.step += 1;
    this.subscription?.unsubscribe();
  }

  private finish(later: Later<T>, done: boolean, value: unknown): void {
    if (this.cancelled) return;
    let next: Eventual<T>;
    try {
      next = done ? later.onDone(value) : later.onError(value);
    } catch (error) {
      this.observer.failure(error);
      return;
    }
    if (next instanceof Later) this.read(next);
    else this.observer.answer(next);
  }
}

const SETTLED: Reading = { cancel(): void {}, seen: 0 };

/** Returns what cancels the reading; for an answer already here, `answer` is called now. */
export function settleEventual<T>(value: Eventual<T>, observer: EventualObserver<T>): Reading {
  if (!(value instanceof Later)) {
    observer.answer(value);
    return SETTLED;
  }
  const reader = new LaterReader(observer);
  reader.read(value);
  return reader;
}

/** An Eventual as an Observable of one value, for the places that compose Observables. */
export function toObservable<T>(value: Eventual<T>): Observable<T> {
  if (!(value instanceof Later)) return of(value);
  return new Observable<T>((subscriber) => emitEventual(value, subscriber));
}

/** Hands `answer` to `subscriber` (its value then complete, or its error), now or when it settles; the teardown cancels a reading. */
export function emitEventual<T>(answer: Eventual<T>, subscriber: Subscriber<T>): TeardownLogic {
  if (!isLater(answer)) {
    subscriber.next(answer);
    subscriber.complete();
    return undefined;
  }
  const reading = settleEventual(answer, {
    answer: (value) => {
      subscriber.next(value);
      subscriber.complete();
    },
    failure: (error) => subscriber.error(error),
  });
  return () => reading.cancel();
}

/*
 * LazyAbort: an AbortController made only when someone reads its signal.
 * Most handlers never look at `ctx.signal`, and an AbortController per call
 * is a measurable share of a small call's cost; aborting before the signal
 * exists makes it born aborted, so no reader can miss a cancellation.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: unknown;
  private abortedEarly = false;

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.abortedEarly) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.abortedEarly || this.controller?.signal.aborted === true;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    if (this.controller !== undefined) {
      this.controller.abort(reason);
      return;
    }
    this.abortedEarly = true;
    this.reason = reason;
  }
}
