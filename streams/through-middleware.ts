/**
 * A call through the server's middleware stages: the method's own work as a
 * reply stream that starts only when a stage subscribes it (so a stage that
 * answers by itself never runs the handler), wrapped by each stage, first
 * stage outermost, and read as one Eventual reply by the worker around it.
 *
 * The worker keeps the contract whatever the stages do: the first reply is
 * the one taken (the stages are unsubscribed then); an error, or completing
 * with no reply (or with something that is not one), is a crash; never
 * answering runs into the callback timeout; unsubscription (every
 * cancellation) travels down through the stages to the handler.
 *
 * Stages that answer synchronously (a synchronous handler, a cache hit)
 * give the worker a plain value, so no deadline is armed for them.
 */
import { Observable, isObservable, type Subscriber, type Subscription, type TeardownLogic } from 'rxjs';
import type { AdmittedCall, CallReply, CallStage } from '../lib/middleware/types.js';
import { errorResponse, isPlainObject, resultResponse, type JsonRpcId, type JsonRpcResponse } from '../lib/protocol/jsonrpc.js';
import { emitEventual, Later, type Eventual } from './worker.js';

function rethrow(error: unknown): never {
  throw error;
}

function isErrorObject(value: unknown): boolean {
  return isPlainObject(value) && typeof value.code === 'number' && typeof value.message === 'string';
}

function checkedReply(last: unknown): CallReply {
  if (isPlainObject(last) && (isErrorObject(last.error) || (last.error === undefined && isPlainObject(last.result)))) {
    return last as CallReply;
  }
  throw new TypeError(
    'a middleware stage completed without a reply, or with something that is not one ({ result: object } or { error: { code, message } })',
  );
}

/**
 * The method's own work as the innermost reply stream: run when subscribed,
 * once per subscription. A real Observable: it is what the first stage (a
 * user's operator) is given to pipe. A throw from `work` is the stream's
 * error.
 */
function workReply(work: () => Eventual<CallReply>): Observable<CallReply> {
  return new Observable<CallReply>((subscriber) => runWork(work, subscriber));
}

/** One subscription's run; a function of its own, so what a waiting call keeps (its reading, its teardown) does not hold `work`. */
function runWork(work: () => Eventual<CallReply>, subscriber: Subscriber<CallReply>): TeardownLogic {
  let answer: Eventual<CallReply>;
  try {
    answer = work();
  } catch (error) {
    subscriber.error(error);
    return undefined;
  }
  return emitEventual(answer, subscriber);
}

/**
 * Reads the outermost stage: keeps its first notification and then lets go
 * of it. When that is not there at once, it is handed on later to whoever
 * subscribes `pending` (the worker, through a Later).
 */
class FirstReply {
  private settled = false;
  private failed = false;
  private value: unknown;
  private subscription: Subscription | undefined;
  private waiting: Subscriber<unknown> | undefined;

  read(replies$: Observable<CallReply>): Eventual<CallReply> {
    const subscription = replies$.subscribe(this);
    if (!this.settled) {
      this.subscription = subscription;
      return new Later<CallReply>(new Observable((subscriber) => this.attach(subscriber)), checkedReply, rethrow);
    }
    subscription.unsubscribe();
    if (this.failed) throw this.value;
    return checkedReply(this.value);
  }

  next(value: CallReply): void {
    this.settle(false, value);
  }

  error(error: unknown): void {
    this.settle(true, error);
  }

  complete(): void {
    this.settle(false, undefined);
  }

  private settle(failed: boolean, value: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.failed = failed;
    this.value = value;
    this.subscription?.unsubscribe();
    if (this.waiting !== undefined) this.deliver(this.waiting);
  }

  private attach(subscriber: Subscriber<unknown>): TeardownLogic {
    if (this.settled) {
      this.deliver(subscriber);
      return undefined;
    }
    this.waiting = subscriber;
    return () => this.subscription?.unsubscribe();
  }

  private deliver(subscriber: Subscriber<unknown>): void {
    if (this.failed) {
      subscriber.error(this.value);
      return;
    }
    subscriber.next(this.value);
    subscriber.complete();
  }
}

export function throughMiddleware(stages: readonly CallStage[], call: AdmittedCall, work: () => Eventual<CallReply>): Eventual<CallReply> {
  let reply$: Observable<CallReply> = workReply(work);
  for (let i = stages.length - 1; i >= 0; i--) {
    const staged: unknown = stages[i]!(call)(reply$);
    // A stage is an operator (CallStage): given a real Observable, it must hand one back; no DirectSource reaches here.
    if (!isObservable(staged)) throw new TypeError(`middleware stage ${i} did not return an Observable for ${call.method}`);
    reply$ = staged as Observable<CallReply>;
  }
  return new FirstReply().read(reply$);
}

/** The reply as the response to `id` (a stage may hand back a reply kept from another call). */
export function responseOf(id: JsonRpcId, reply: CallReply): JsonRpcResponse {
  return reply.error !== undefined ? errorResponse(id, reply.error) : resultResponse(id, reply.result);
}

/** A response that came through the stages, told apart from a tool's own result by its class. */
export class StagedResponse {
  constructor(readonly response: JsonRpcResponse) {}
}
