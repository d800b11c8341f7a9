/**
 * RedisTaskStore: the tasks extension's store (lib/ports/task-store.ts)
 * shared by every node of a deployment. Any node answers `tasks/get`,
 * `tasks/update` and `tasks/cancel`; the node that created a task runs it
 * and follows it.
 *
 * Same semantics as MemoryTaskStore, each check-and-change one Lua script
 * (scripts/task-*.ts, keys in scripts/task-lua.ts): create applies the
 * bounds (tasks in total, per owner, retained bytes) and answers once the
 * task is stored; answer takes each outstanding key once; finish and cancel
 * keep the first terminal write; every key has a PX. Time is Redis `TIME`
 * (one clock for every node): a record's times are Redis's, and a task is
 * gone `ttlMs` after its creation on that clock. Owners are kept raw in the
 * record (`get` returns the owner the server compares) and hashed in the
 * per-owner count.
 *
 * The runner's node holds a lease on its task while it follows it
 * (task-followers.ts): answers wait in the task's mailbox, a doorbell on the
 * runner's channel says so at once, and the renewal every leaseMs/3 drains
 * it. A `get` of a task not ended whose lease has lapsed fails it with
 * `{code: -32603, message: 'Internal error: the node running the task is gone'}`,
 * so a task whose node died is `failed` within one lease.
 *
 * Fails closed, never hangs: every call is bounded by `timeoutMs` on the
 * server's scheduler. A Redis error, a timeout or a reply not of the
 * script's shape is logged; `create` then refuses (`task store unavailable`)
 * and every other operation errors with that message (the server answers
 * -32603), so nothing is guessed and the process goes on.
 */
import { createHash } from 'node:crypto';
import { firstValueFrom, of, type Observable } from 'rxjs';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import { ConfigError } from '../../lib/errors.js';
import { positiveIntegerOption } from '../../lib/option-checks.js';
import type { NewTask, TaskAnswer, TaskCreation, TaskEnding, TaskSignal, TaskStore, TaskStoreFactory, TaskStoreSetup } from '../../lib/ports/task-store.js';
import { randomId } from '../../lib/random-id.js';
import { retainedSize } from '../../lib/retained-size.js';
import { TASK_BYTES, TASK_STORE_TEXTS } from '../../lib/tasks/memory-task-store.js';
import type { TaskRecord } from '../../lib/tasks/task-record.js';
import { failClosedCall } from './fail-closed.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink, RedisReply } from './link.js';
import type { LuaScript } from './lua-script.js';
import { TASK_ANSWER } from './scripts/task-answer.js';
import { TASK_ASK } from './scripts/task-ask.js';
import { TASK_CANCEL } from './scripts/task-cancel.js';
import { TASK_CREATE } from './scripts/task-create.js';
import { TASK_FINISH } from './scripts/task-finish.js';
import { TASK_GET } from './scripts/task-get.js';
import { TASK_INDEX_PARTS } from './scripts/task-lua.js';
import { TASK_RENEW } from './scripts/task-renew.js';
import { TaskFollowers } from './task-followers.js';
import { parseAnswerReply, parseAskReply, parseCreateReply, parseFlagReply, parseGetReply, parseRenewReply, type RenewState } from './task-replies.js';

/** Options of `redisTaskStore` and `RedisTaskStore`: the link, the keys, `timeoutMs` (default 5000) and `leaseMs` (default 15000). */
export interface RedisTaskStoreOptions {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  /** Longest one call may wait for Redis before it fails closed; default 5000. */
  readonly timeoutMs?: number | undefined;
  /** How long a task's runner counts as alive without a renewal (renewed every leaseMs/3 while it follows); default 15000, at least 30. */
  readonly leaseMs?: number | undefined;
}

/** The error of a task whose runner stopped renewing its lease (its node died, or the follow ended without a finish). */
export const RUNNER_GONE = { code: -32603, message: 'Internal error: the node running the task is gone' } as const;

/** What create refuses with, and the message every other operation errors with, while Redis fails. */
export const TASK_STORE_UNAVAILABLE = 'task store unavailable';

const DEFAULT_TIMEOUT_MS = 5000;
const DEFAULT_LEASE_MS = 15_000;
/** Ids the scripts take as key names: what randomId makes, with room; anything else is unknown without a round trip. */
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The `tasks.store` option for a deployment: `tasks: { store: redisTaskStore({ link, keys }) }`. */
export function redisTaskStore(options: RedisTaskStoreOptions): TaskStoreFactory {
  return (setup) => new RedisTaskStore(options, setup);
}

/** A TaskStore on Redis, shared by every node: each operation one Lua script on Redis time, the runner's lease renewed while it follows; fails closed. */
export class RedisTaskStore implements TaskStore {
  readonly leaseMs: number;
  readonly timeoutMs: number;
  private readonly indexKeys: readonly string[];
  /** The ARGV every script ends with (scripts/task-lua.ts): the task key prefix, and how long the index keys outlive the last write. */
  private readonly tail: readonly (string | number)[];
  private readonly followers: TaskFollowers;
  private closed = false;

  constructor(
    private readonly options: RedisTaskStoreOptions,
    private readonly setup: TaskStoreSetup,
  ) {
    this.timeoutMs = positiveIntegerOption('tasks.store timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
    this.leaseMs = positiveIntegerOption('tasks.store leaseMs', options.leaseMs, DEFAULT_LEASE_MS);
    if (this.leaseMs < 30) throw new ConfigError('tasks.store leaseMs', 'tasks.store leaseMs must be at least 30');
    this.indexKeys = TASK_INDEX_PARTS.map((part) => options.keys.key('tasks', part));
    // Index keys outlive the last task written by its whole life and a margin; each task's own keys have its time left.
    this.tail = [options.keys.key('task', ''), setup.ttlMs + this.leaseMs + 60_000];
    this.followers = new TaskFollowers(
      (nodeTag) => options.keys.channel('tasks', nodeTag),
      (channel, listener) => options.link.subscribe(channel, listener),
      (channel, taskIds) => this.renew(channel, taskIds),
      setup,
      this.leaseMs,
    );
  }

  create(task: NewTask): Observable<TaskCreation> {
    if (this.closed) return of({ created: false, reason: TASK_STORE_TEXTS.closing });
    const { ttlMs, pollIntervalMs, maxTasks, maxTasksPerOwner, maxRetainedBytes } = this.setup;
    return this.call(
      'create',
      () => {
        const taskId = randomId('task-');
        const args = [taskId, task.owner, ownerHash(task.owner), task.method, task.name, ttlMs, pollIntervalMs, this.leaseMs];
        return this.run(TASK_CREATE, [...args, maxTasks, maxTasksPerOwner, maxRetainedBytes, TASK_BYTES]).then((reply) => ({ taskId, reply: parseCreateReply(reply) }));
      },
      ({ taskId, reply }): TaskCreation => {
        if (reply.kind === 'collision') throw new Error('task id collision');
        if (reply.kind === 'refused') return { created: false, reason: this.refusal(reply.bound) };
        const { owner, method, name } = task;
        const record: TaskRecord = { taskId, owner, method, name, status: 'working', createdAt: reply.now, lastUpdatedAt: reply.now, ttlMs, pollIntervalMs };
        return { created: true, task: record };
      },
      (): TaskCreation => ({ created: false, reason: TASK_STORE_UNAVAILABLE }),
    );
  }

  get(taskId: string): Observable<TaskRecord | undefined> {
    if (!TASK_ID.test(taskId)) return of(undefined);
    return this.call('get', () => this.run(TASK_GET, [taskId, JSON.stringify(RUNNER_GONE)]), (reply) => parseGetReply(reply, taskId), unavailable);
  }

  ask(taskId: string, requests: Readonly<Record<string, InputRequest>>): Observable<boolean> {
    if (!TASK_ID.test(taskId)) return of(false);
    const max = this.setup.maxRetainedBytes;
    return this.call(
      'ask',
      () => this.run(TASK_ASK, [taskId, max, retainedSize(requests, max), JSON.stringify(TASK_STORE_TEXTS.questionsTooLarge), ...pairs(requests)]).then(parseAskReply),
      (reply) => {
        if (reply === 'reused') throw new KeyReused(taskId);
        // The task failed for want of room: its runner's follow ends, as when it finishes.
        if (reply === 'full') this.followers.release(taskId);
        return reply === 'ok';
      },
      unavailable,
    );
  }

  answer(taskId: string, responses: Readonly<Record<string, unknown>>): Observable<TaskAnswer> {
    if (!TASK_ID.test(taskId)) return of({ found: false });
    return this.call(
      'answer',
      () => this.run(TASK_ANSWER, [taskId, ...pairs(responses)]).then(parseAnswerReply),
      (accepted): TaskAnswer => (accepted === undefined ? { found: false } : { found: true, accepted }),
      unavailable,
    );
  }

  finish(taskId: string, ending: TaskEnding): Observable<boolean> {
    if (!TASK_ID.test(taskId)) return of(false);
    const max = this.setup.maxRetainedBytes;
    const result = ending.status === 'completed' ? JSON.stringify(ending.result) : '';
    const error = ending.status === 'failed' ? JSON.stringify(ending.error) : '';
    const message = ending.status === 'completed' ? '' : (ending.statusMessage ?? '');
    const stored = ending.status === 'completed' ? ending.result : ending.status === 'failed' ? ending.error : undefined;
    const bytes = stored === undefined ? 0 : retainedSize(stored, max);
    return this.call(
      'finish',
      () => this.run(TASK_FINISH, [taskId, ending.status, result, error, message, bytes, max, JSON.stringify(TASK_STORE_TEXTS.resultTooLarge)]),
      (reply) => {
        const ended = parseFlagReply(reply, 'finish');
        if (ended) this.followers.release(taskId);
        return ended;
      },
      unavailable,
    );
  }

  cancel(taskId: string): Observable<boolean> {
    if (!TASK_ID.test(taskId)) return of(false);
    return this.call('cancel', () => this.run(TASK_CANCEL, [taskId, TASK_STORE_TEXTS.cancelled]), (reply) => parseFlagReply(reply, 'cancel'), unavailable);
  }

  follow(taskId: string): Observable<TaskSignal> {
    if (!TASK_ID.test(taskId)) return of({ kind: 'stop', reason: 'expired' });
    return this.followers.follow(taskId);
  }

  /** This node's close: its followers stopped (`closed`), its renewals and doorbell ended, creation refused. Its tasks stay in Redis, where their lease lapses. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.followers.close();
  }

  private refusal(bound: 'total' | 'owner' | 'bytes'): string {
    if (bound === 'total') return TASK_STORE_TEXTS.total(this.setup.maxTasks);
    if (bound === 'owner') return TASK_STORE_TEXTS.owner(this.setup.maxTasksPerOwner);
    return TASK_STORE_TEXTS.bytes;
  }

  /** One renewal (task-followers.ts), bounded like every call; a failure is the followers' to log and retry. */
  private renew(channel: string, taskIds: readonly string[]): Promise<RenewState[]> {
    const renewal = failClosedCall(
      () => this.run(TASK_RENEW, [channel, this.leaseMs, ...taskIds]),
      (reply) => parseRenewReply(reply, taskIds.length),
      { ms: this.timeoutMs, scheduler: this.setup.scheduler },
      (err): never => {
        throw err;
      },
    );
    return firstValueFrom(renewal);
  }

  /** One script call: bounded in time, its reply checked, any failure logged and answered by `failed`. */
  private call<R, T>(op: string, start: () => Promise<R>, handle: (reply: R) => T, failed: () => T): Observable<T> {
    return failClosedCall(start, handle, { ms: this.timeoutMs, scheduler: this.setup.scheduler }, (err) => {
      // Already the answer (a runner's mistake, or a failure logged once on its way here).
      if (err instanceof KeyReused || err instanceof StoreUnavailable) throw err;
      this.setup.logger.error({ err, op, store: 'redis' }, 'task store failed (fail closed)');
      return failed();
    });
  }

  /** `args` and the tail every task script ends with. */
  private run(script: LuaScript, args: ReadonlyArray<string | number>): Promise<RedisReply> {
    return this.options.link.run(script, this.indexKeys, [...args, ...this.tail]);
  }
}

/** An ask of a key asked before in the task: the runner's mistake, so an error, not a false. */
class KeyReused extends Error {
  constructor(taskId: string) {
    super(`task ${taskId}: an input key was asked before; keys are never reused`);
  }
}

/** What every operation but create errors with while Redis fails. */
class StoreUnavailable extends Error {
  constructor() {
    super(TASK_STORE_UNAVAILABLE);
  }
}

function unavailable(): never {
  throw new StoreUnavailable();
}

/** key1, json1, key2, json2, ...: what the ask and answer scripts take. */
function pairs(values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values).flatMap(([key, value]) => [key, JSON.stringify(value) ?? 'null']);
}

/** base64url SHA-256 of an owner: the per-owner count's field, so the raw owner stays out of the index. */
function ownerHash(owner: string): string {
  return createHash('sha256').update(`task-owner\u0000${owner}`, 'utf8').digest('base64url');
}
