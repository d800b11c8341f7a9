/**
 * TaskRun: one tools/call that is, or may become, a task, on the process
 * that runs its handler.
 *
 * - `startAsTask` (policy `afterMs: 0`): the task is stored first, then the
 *   handler starts under it; the request is answered with the CreateTaskResult.
 * - `startRacing` (policy `afterMs: N`): the handler starts as a plain call
 *   (the request's channel: an input call is an ordinary input round) and the
 *   request gets its answer if it comes within N ms on the server's
 *   scheduler; at N ms the task is stored, the handler's channel switches to
 *   the task's, and the request is answered with the CreateTaskResult while
 *   the handler goes on.
 *
 * Once a task, the run follows it in the store: `tasks/update` answers reach
 * the handler's waiting ctx.elicit / ctx.askInputs, and a cancel, the TTL or
 * the server's close aborts `ctx.signal`. The handler's outcome is stored
 * once: its result (`isError` included) as `completed`, a JSON-RPC error its
 * middleware answered or a crash as `failed`. A task holds no request and no
 * worker slot: its bounds are the store's (tasks per owner and in total).
 */
import { Observable, type Subscriber, type Subscription, type TeardownLogic } from 'rxjs';
import { InputNeededError, INTERNAL_ERROR, MISSING_REQUIRED_CLIENT_CAPABILITY } from '../../lib/errors.js';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import type { TaskEnding, TaskSignal } from '../../lib/ports/task-store.js';
import type { ToolDef } from '../../lib/tool-def.js';
import type { CallToolResult } from '../../lib/tool-result.js';
import type { TaskRecord } from '../../lib/tasks/task-record.js';
import { callContext, requestChannel } from '../call-context.js';
import type { ClientChannel } from '../client-channel.js';
import { eventualOf, Later, settleEventual, thenEventual, type Eventual, type EventualObserver, type Reading, LazyAbort, CallCancelledError } from '../worker.js';
import { runTool } from '../run-tool.js';
import type { RequestScope, ServerCore } from '../state/server-core.js';
import type { TaskStore } from '../../lib/ports/task-store.js';
import type { ApprovalCounts } from '../../lib/approval-counts.js';
import type { StagedResponse } from '../through-middleware.js';
import { TaskChannel, type TaskQuestions } from './task-channel.js';
import { SwitchingChannel } from './switching-channel.js';
import { TaskCreated, type FirstAnswer } from './task-created.js';
import { endingOf, taskRefused } from './task-ending.js';
import { sendQuestionsToClient } from './legacy-questions.js';

type HandlerAnswer = CallToolResult | StagedResponse;

/** What a run needs of its server's tasks (task-service.ts): the store, the core, and the table of runs here. */
export interface TaskRunHost {
  readonly store: TaskStore;
  readonly core: ServerCore;
  readonly runs: Map<string, TaskRun>;
  /** The server's approval caps (legacy parked calls, MRTR tickets and approval tasks together). */
  readonly counts: ApprovalCounts;
  /** A task's status changed here: the listen streams that named it are told (task-service.ts). */
  changed(taskId: string): void;
  /** A task is alive on this process, and then over: what ends with its connection (task-service.ts). */
  began(taskId: string, scope: RequestScope): void;
  ended(taskId: string, scope: RequestScope): void;
}

/** A question of the handler's, waiting for every one of its keys. */
interface Waiter {
  readonly pending: Set<string>;
  readonly answers: Record<string, unknown>;
  resolve(answers: Record<string, unknown>): void;
  reject(error: unknown): void;
}

type Phase = 'request' | 'creating' | 'task' | 'ended';

export class TaskRun implements EventualObserver<HandlerAnswer>, TaskQuestions {
  /** The handler's signal: the request's own while the call may still be answered plainly (no extra controller), else the task's. */
  private abort: LazyAbort;
  private phase: Phase = 'request';
  private task: TaskRecord | undefined;
  /** The handler's outcome when it came while the task was being stored. */
  private early: { ok: true; value: HandlerAnswer } | { ok: false; error: unknown } | undefined;
  /** The request's wait for its first answer (racing only); its teardown is the request gone. */
  private first: Subscriber<FirstAnswer> | undefined;
  /** The first answer, when it came before the request started waiting. */
  private firstOutcome: { ok: true; value: FirstAnswer } | { ok: false; error: unknown } | undefined;
  private timer: Subscription | undefined;
  private following: Subscription | undefined;
  private reading: Reading | undefined;
  // Made on first use, as the three below: most calls that may become tasks answer at once and ask nothing.
  private waiters: Set<Waiter> | undefined;
  /** Questions asked while the task was being stored: stored once it is. */
  private queued: Array<Readonly<Record<string, InputRequest>>> | undefined;
  private usedKeys: Set<string> | undefined;
  private keyCount = 0;

  constructor(
    private readonly service: TaskRunHost,
    private readonly scope: RequestScope,
    private readonly tool: ToolDef,
    private readonly args: Record<string, unknown>,
  ) {
    this.abort = new LazyAbort();
  }

  /** The task first, then the handler under it. */
  startAsTask(): Eventual<FirstAnswer> {
    this.phase = 'creating';
    const creation$ = this.service.store.create({ owner: this.scope.peer, method: 'tools/call', name: this.tool.name });
    return thenEventual(eventualOf(creation$), (creation): FirstAnswer => {
      if (creation === undefined || !creation.created) {
        this.phase = 'ended';
        return taskRefused(creation === undefined ? 'the task store answered nothing' : creation.reason);
      }
      this.becomeTask(creation.task);
      this.runHandler(new TaskChannel(this.service.core, this.scope, this));
      return new TaskCreated(creation.task);
    });
  }

  /** The handler under a task that exists already (an approval task, approved: approval-task.ts). */
  adopt(task: TaskRecord): void {
    this.becomeTask(task);
    this.runHandler(new TaskChannel(this.service.core, this.scope, this));
  }

  /** The handler now as a plain call; a task if it has not answered within `afterMs`. */
  startRacing(requestAbort: LazyAbort, afterMs: number): Eventual<FirstAnswer> {
    // Until it is a task the request's cancellation is the call's: its own signal, no controller of ours.
    this.abort = requestAbort;
    const channel = new SwitchingChannel(this.service.core, this.scope, requestAbort, this);
    this.runHandler(channel);
    // Answered at once (a synchronous handler): the plain answer, no timer, no task.
    const now = this.firstOutcome;
    if (now !== undefined) {
      if (now.ok) return now.value;
      throw now.error;
    }
    this.timer = this.service.core.options.scheduler.schedule(() => this.promote(channel), afterMs);
    return new Later<FirstAnswer>(new Observable<FirstAnswer>((subscriber) => this.awaitFirst(subscriber)), identity, rethrow);
  }

  /** The request starts waiting; its teardown (the request cancelled, or answered) stops a call that is still only a request. */
  private awaitFirst(subscriber: Subscriber<FirstAnswer>): TeardownLogic {
    const now = this.firstOutcome;
    if (now !== undefined) {
      if (now.ok) subscriber.next(now.value), subscriber.complete();
      else subscriber.error(now.error);
      return undefined;
    }
    this.first = subscriber;
    return () => {
      this.first = undefined;
      if (this.phase === 'request') this.stop('cancelled');
    };
  }

  /** The request's answer, now or when it starts waiting. */
  private answerFirst(outcome: { ok: true; value: FirstAnswer } | { ok: false; error: unknown }): void {
    const first = this.first;
    if (first === undefined) {
      this.firstOutcome = outcome;
      return;
    }
    this.first = undefined;
    if (outcome.ok) {
      first.next(outcome.value);
      first.complete();
    } else first.error(outcome.error);
  }

  /** TaskQuestions: a key unused in this task, the handler's own when it is free. */
  freshKey(wanted?: string): string {
    const used = (this.usedKeys ??= new Set());
    let key = wanted !== undefined && !used.has(wanted) ? wanted : `rxmcp.${++this.keyCount}`;
    while (used.has(key)) key = `rxmcp.${++this.keyCount}`;
    used.add(key);
    return key;
  }

  /** TaskQuestions: stores the questions on the task and waits for all their answers. */
  ask(requests: Readonly<Record<string, InputRequest>>): Promise<Record<string, unknown>> {
    if (this.phase === 'ended' || this.phase === 'request') return Promise.reject(new CallCancelledError('the task is not running'));
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      (this.waiters ??= new Set()).add({ pending: new Set(Object.keys(requests)), answers: {}, resolve, reject });
      if (this.phase === 'creating') (this.queued ??= []).push(requests);
      else this.store(requests);
    });
  }

  /** EventualObserver: the handler answered. */
  answer(value: HandlerAnswer): void {
    this.settled({ ok: true, value });
  }

  /** EventualObserver: the handler failed. */
  failure(error: unknown): void {
    this.settled({ ok: false, error });
  }

  private settled(outcome: { ok: true; value: HandlerAnswer } | { ok: false; error: unknown }): void {
    switch (this.phase) {
      case 'request':
        // In time: the request's own answer (an input round's failure included), no task.
        this.phase = 'ended';
        this.timer?.unsubscribe();
        this.answerFirst(outcome);
        return;
      case 'creating':
        this.early = outcome;
        return;
      case 'task':
        this.end(outcome.ok ? endingOf(outcome.value) : this.failedEnding(outcome.error));
        return;
      case 'ended':
        return;
    }
  }

  private runHandler(channel: ClientChannel): void {
    const ctx = callContext(this.service.core, this.scope, this.abort, channel);
    let answer: Eventual<HandlerAnswer>;
    try {
      answer = runTool(this.service.core, this.scope, this.tool, this.args, this.abort, ctx);
    } catch (error) {
      this.failure(error);
      return;
    }
    const reading = settleEventual(answer, this);
    if (this.phase !== 'ended') this.reading = reading;
  }

  /** The afterMs timer: the call becomes a task. */
  private promote(channel: SwitchingChannel): void {
    this.timer = undefined;
    if (this.phase !== 'request') return;
    this.phase = 'creating';
    channel.switchToTask();
    this.service.store.create({ owner: this.scope.peer, method: 'tools/call', name: this.tool.name }).subscribe({
      next: (creation) => {
        if (creation.created) this.promoted(creation.task);
        else this.notPromoted(creation.reason);
      },
      error: (error: unknown) => {
        this.service.core.options.logger.error({ err: error, tool: this.tool.name }, 'task store failed to create a task');
        this.notPromoted('the task store is unavailable');
      },
    });
  }

  private promoted(task: TaskRecord): void {
    this.becomeTask(task);
    // The task's own signal from now on: the request's no longer reaches the handler.
    this.answerFirst({ ok: true, value: new TaskCreated(task) });
    const early = this.early;
    if (early !== undefined) this.settled(early);
  }

  /** No room for the task: the call ends with the refusal, its handler stopped. */
  private notPromoted(reason: string): void {
    const early = this.early;
    this.stop('refused');
    this.answerFirst({ ok: true, value: early?.ok === true ? early.value : taskRefused(reason) });
  }

  private becomeTask(task: TaskRecord): void {
    this.task = task;
    this.phase = 'task';
    this.service.runs.set(task.taskId, this);
    this.service.began(task.taskId, this.scope);
    this.following = this.service.store.follow(task.taskId).subscribe({
      next: (signal) => this.heard(signal),
      // A store that stops telling (it ended the task itself, or lost it) stops the work.
      complete: () => this.stop('closed'),
      error: (error: unknown) => {
        this.service.core.options.logger.error({ err: error, taskId: task.taskId }, 'task store stopped following a task');
        this.stop('closed');
      },
    });
    const queued = this.queued;
    this.queued = undefined;
    for (const requests of queued ?? []) this.store(requests);
  }

  private store(requests: Readonly<Record<string, InputRequest>>): void {
    const taskId = this.task!.taskId;
    this.service.store.ask(taskId, requests).subscribe({
      next: (stored) => {
        if (!stored) {
          this.stop('closed');
          return;
        }
        this.service.changed(taskId);
        // 2025-11-25 has no tasks/update: the client is sent the questions as requests, tied to the task.
        if (this.scope.era === 'legacy') {
          const channel = requestChannel(this.service.core, this.scope, this.abort);
          sendQuestionsToClient(channel, this.service.store, taskId, requests, (key, error) => this.unanswered(key, error));
        }
      },
      error: (error: unknown) => {
        this.service.core.options.logger.error({ err: error, taskId }, 'task store failed to store a question');
        this.end({ status: 'failed', error: { code: INTERNAL_ERROR, message: 'Internal error: the task store is unavailable' } });
      },
    });
  }

  /** A question the client could not be asked or did not answer: the handler's wait for it fails with why. */
  private unanswered(key: string, error: unknown): void {
    const waiters = this.waiters;
    if (waiters === undefined) return;
    for (const waiter of waiters) {
      if (!waiter.pending.has(key)) continue;
      waiters.delete(waiter);
      waiter.reject(error);
    }
  }

  private heard(signal: TaskSignal): void {
    if (signal.kind === 'stop') {
      this.stop(signal.reason);
      return;
    }
    const waiters = this.waiters;
    if (waiters === undefined) return;
    for (const waiter of waiters) {
      for (const [key, value] of Object.entries(signal.responses)) {
        if (!waiter.pending.delete(key)) continue;
        waiter.answers[key] = value;
      }
      if (waiter.pending.size === 0) {
        waiters.delete(waiter);
        waiter.resolve(waiter.answers);
      }
    }
  }

  /** How a failed handler ends its task: stopped by us, a missing capability, or a crash. */
  private failedEnding(error: unknown): TaskEnding {
    if (this.abort.aborted) return { status: 'cancelled' };
    if (error instanceof InputNeededError) {
      return {
        status: 'failed',
        error: { code: MISSING_REQUIRED_CLIENT_CAPABILITY, message: error.message, data: { requiredCapabilities: error.need.requiredCapabilities } },
        statusMessage: error.message,
      };
    }
    this.service.core.options.logger.error({ err: error, tool: this.tool.name, taskId: this.task?.taskId }, `MCP callback crashed in task: tools/call ${this.tool.name}`);
    return { status: 'failed', error: { code: INTERNAL_ERROR, message: 'Internal error: the tool failed (callback_crashed)' }, statusMessage: 'the tool failed' };
  }

  /** The outcome stored, once; the run's ties undone. */
  private end(ending: TaskEnding): void {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    this.release(new CallCancelledError('the task ended'));
    const taskId = this.task!.taskId;
    this.service.store.finish(taskId, ending).subscribe({
      complete: () => this.service.changed(taskId),
      error: (error: unknown) => this.service.core.options.logger.error({ err: error, taskId }, 'task store failed to store a task outcome'),
    });
  }

  /** The work stopped from outside: a cancel, the TTL, the server's close, or no room for the task. */
  private stop(reason: string): void {
    if (this.phase === 'ended') return;
    const wasRequest = this.phase === 'request';
    this.phase = 'ended';
    const stopped = new CallCancelledError(`task ${reason}`);
    this.abort.abort(stopped);
    this.reading?.cancel();
    this.release(stopped);
    if (wasRequest) this.answerFirst({ ok: false, error: stopped });
  }

  private release(reason: unknown): void {
    this.timer?.unsubscribe();
    this.following?.unsubscribe();
    if (this.task !== undefined) {
      this.service.runs.delete(this.task.taskId);
      this.service.ended(this.task.taskId, this.scope);
    }
    const waiters = this.waiters;
    this.waiters = undefined;
    for (const waiter of waiters ?? []) waiter.reject(reason);
  }
}

function identity(value: unknown): FirstAnswer {
  return value as FirstAnswer;
}

function rethrow(error: unknown): never {
  throw error;
}
