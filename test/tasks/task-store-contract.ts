/**
 * The TaskStore contract (lib/ports/task-store.ts) as vitest tests, for any
 * store: `taskStoreContract(name, harness)` registers them against stores the
 * harness builds. The harness owns the clock: a virtual one for the
 * in-memory store (memory-task-store.test.ts), Redis TIME and short real
 * waits for the Redis store (test/cluster/redis-task-store.test.ts).
 */
import { firstValueFrom, type Observable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import type { InputRequest } from '../../lib/mrtr/approval-form.js';
import type { TaskSignal, TaskStore, TaskStoreSetup } from '../../lib/ports/task-store.js';

/** The bounds a contract test sets; the harness fills in the rest of the setup. */
export type TaskBounds = Pick<TaskStoreSetup, 'maxTasks' | 'maxTasksPerOwner' | 'maxRetainedBytes'>;

/** What the contract needs of the store under test and of its clock. */
export interface TaskStoreHarness {
  /** `ttlMs` every store it builds is given. */
  readonly ttlMs: number;
  /** How long before `ttlMs` a task must still be there: 1 on a virtual clock, more where time is real. */
  readonly marginMs: number;
  /** A new store with these bounds (an empty one: tasks of other tests are not seen). */
  store(bounds?: Partial<TaskBounds>): Promise<TaskStore>;
  /** Lets `ms` pass on the store's clock. */
  advance(ms: number): Promise<void>;
  /** Resolves once `check()` holds (signals may cross a network); throws if it does not within the harness's bound. */
  until(check: () => boolean, what: string): Promise<void>;
}

/** A follower's signals as they arrive, and whether its stream completed. */
export interface Followed {
  readonly signals: TaskSignal[];
  done: boolean;
  stop(): void;
}

export function followTask(store: TaskStore, taskId: string): Followed {
  const followed: Followed = { signals: [], done: false, stop: () => subscription.unsubscribe() };
  const subscription = store.follow(taskId).subscribe({
    next: (signal) => followed.signals.push(signal),
    complete: () => (followed.done = true),
  });
  return followed;
}

/** Every answer a follower was sent, merged. */
export function answersOf(followed: Followed): Record<string, unknown> {
  // No prototype, and defined rather than assigned: `__proto__` is an answer key like any other.
  const merged = Object.create(null) as Record<string, unknown>;
  for (const signal of followed.signals) {
    if (signal.kind === 'answers') for (const [key, value] of Object.entries(signal.responses)) Object.defineProperty(merged, key, { value, enumerable: true });
  }
  return merged;
}

const once = <T>(source: Observable<T>): Promise<T> => firstValueFrom(source);

const question = (message: string): InputRequest => ({ method: 'elicitation/create', params: { mode: 'form', message } });

async function newTask(store: TaskStore, owner = 'alice'): Promise<string> {
  const created = await once(store.create({ owner, method: 'tools/call', name: 'slow' }));
  if (!created.created) throw new Error(`create refused: ${created.reason}`);
  return created.task.taskId;
}

/** Registers the TaskStore contract's tests against the stores `harness` builds. */
export function taskStoreContract(name: string, harness: TaskStoreHarness): void {
  describe(`${name}: the TaskStore contract`, () => {
    describe('create and get', () => {
      test('a created task is found at once, working, with what it was created with', async () => {
        const store = await harness.store();
        const created = await once(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
        expect(created.created).toBe(true);
        if (!created.created) return;
        const got = await once(store.get(created.task.taskId));
        expect(got).toMatchObject({ taskId: created.task.taskId, owner: 'alice', method: 'tools/call', name: 'slow', status: 'working', ttlMs: harness.ttlMs });
        expect(got!.lastUpdatedAt).toBeGreaterThanOrEqual(got!.createdAt);
        expect(got!.pollIntervalMs).toBeGreaterThan(0);
        expect(got!.inputRequests).toBeUndefined();
        expect(got!.result).toBeUndefined();
        expect(got!.error).toBeUndefined();
      });

      test('ids are distinct and carry at least 128 random bits', async () => {
        const store = await harness.store({ maxTasks: 64, maxTasksPerOwner: 64 });
        const ids = await Promise.all(Array.from({ length: 40 }, () => newTask(store)));
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) {
          // Whatever the prefix, the random part is base64url of at least 16 bytes.
          const random = /[A-Za-z0-9_-]{22,}$/.exec(id)?.[0] ?? '';
          expect(Buffer.from(random, 'base64url').length).toBeGreaterThanOrEqual(16);
        }
        // Random, not a counter: past their fixed prefix, ids part at once, where a counter's share all but the
        // last characters. Asking for 20 different characters allows two ids that happen to share four (for
        // 24 random ones, this fails 1 time in 27 million).
        const prefix = (a: string, b: string): number => [...a].findIndex((c, i) => c !== b[i]);
        const fixed = Math.min(...ids.slice(1).map((id) => prefix(id, ids[0]!)));
        expect(ids[0]!.length - fixed).toBeGreaterThanOrEqual(20);
      });

      test('an unknown id: get is undefined, answer not found, cancel, ask and finish false, follow stops', async () => {
        const store = await harness.store();
        const id = 'task-AAAAAAAAAAAAAAAAAAAAAAAA';
        expect(await once(store.get(id))).toBeUndefined();
        expect(await once(store.answer(id, { a: 1 }))).toEqual({ found: false });
        expect(await once(store.cancel(id))).toBe(false);
        expect(await once(store.ask(id, { a: question('a?') }))).toBe(false);
        expect(await once(store.finish(id, { status: 'completed', result: {} }))).toBe(false);
        const followed = followTask(store, id);
        await harness.until(() => followed.done, 'the follow of an unknown task to end');
        expect(followed.signals).toEqual([{ kind: 'stop', reason: 'expired' }]);
      });
    });

    describe('bounds refuse clearly', () => {
      test('maxTasks: the task past it is refused with a reason, for any owner', async () => {
        const store = await harness.store({ maxTasks: 2, maxTasksPerOwner: 2 });
        await newTask(store, 'alice');
        await newTask(store, 'bob');
        const refused = await once(store.create({ owner: 'carol', method: 'tools/call', name: 'slow' }));
        expect(refused).toEqual({ created: false, reason: expect.stringMatching(/limit of 2 tasks/) });
      });

      test('maxTasksPerOwner: the owner at it is refused, another owner is not', async () => {
        const store = await harness.store({ maxTasks: 10, maxTasksPerOwner: 2 });
        await newTask(store, 'alice');
        await newTask(store, 'alice');
        const refused = await once(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
        expect(refused).toEqual({ created: false, reason: expect.stringMatching(/caller holds its limit of 2 tasks/) });
        await expect(newTask(store, 'bob')).resolves.toEqual(expect.any(String));
      });

      test('maxRetainedBytes: a task that does not fit is refused', async () => {
        const store = await harness.store({ maxRetainedBytes: 1 });
        const refused = await once(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
        expect(refused).toEqual({ created: false, reason: expect.stringMatching(/task memory/) });
      });

      test('maxRetainedBytes: a result past it is stored as a failed task (the finish still ends it)', async () => {
        const store = await harness.store({ maxRetainedBytes: 4096 });
        const id = await newTask(store);
        expect(await once(store.finish(id, { status: 'completed', result: { text: 'x'.repeat(10_000) } }))).toBe(true);
        const got = await once(store.get(id));
        expect(got).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringMatching(/task memory/) } });
        expect(got!.result).toBeUndefined();
      });

      test('maxRetainedBytes: a question past it fails the task, and ask is false', async () => {
        const store = await harness.store({ maxRetainedBytes: 4096 });
        const id = await newTask(store);
        expect(await once(store.ask(id, { big: question('y'.repeat(10_000)) }))).toBe(false);
        expect(await once(store.get(id))).toMatchObject({ status: 'failed', error: { code: -32603 } });
      });
    });

    describe('ask', () => {
      test('input_required with every outstanding request; asks add up', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        expect(await once(store.ask(id, { a: question('a?') }))).toBe(true);
        expect(await once(store.ask(id, { b: question('b?') }))).toBe(true);
        const got = await once(store.get(id));
        expect(got).toMatchObject({ status: 'input_required', inputRequests: { a: question('a?'), b: question('b?') } });
      });

      test('a key is never asked twice: outstanding or answered, the ask is refused and changes nothing', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.ask(id, { a: question('a?'), b: question('b?') }));
        await expect(once(store.ask(id, { a: question('again?') }))).rejects.toThrow(/never reused/);
        await once(store.answer(id, { b: 'yes' }));
        await expect(once(store.ask(id, { b: question('again?'), c: question('c?') }))).rejects.toThrow(/never reused/);
        expect((await once(store.get(id)))?.inputRequests).toEqual({ a: question('a?') });
      });

      test('an ask of nothing changes nothing (the task does not wait on no question)', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        expect(await once(store.ask(id, {}))).toBe(true);
        expect((await once(store.get(id)))?.status).toBe('working');
      });

      test('keys are plain data: __proto__ and constructor are asked, kept and answered like any other', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        const requests = JSON.parse('{"__proto__": {"method": "roots/list"}, "constructor": {"method": "roots/list"}, "k": {"method": "roots/list"}}') as Record<string, InputRequest>;
        expect(await once(store.ask(id, requests))).toBe(true);
        const asked = await once(store.get(id));
        expect(Object.keys(asked?.inputRequests ?? {}).sort()).toEqual(['__proto__', 'constructor', 'k']);
        expect(await once(store.answer(id, JSON.parse('{"__proto__": "P", "k": "K"}') as Record<string, unknown>))).toEqual({
          found: true,
          accepted: expect.arrayContaining(['__proto__', 'k']),
        });
        const left = await once(store.get(id));
        expect(Object.keys(left?.inputRequests ?? {})).toEqual(['constructor']);
        await harness.until(() => Object.keys(answersOf(followed)).length === 2, 'the runner to hear both answers');
        const heard = followed.signals.flatMap((signal) => (signal.kind === 'answers' ? Object.keys(signal.responses) : []));
        expect(heard.sort()).toEqual(['__proto__', 'k']);
        followed.stop();
      });

      test('an ask of an ended task is false and changes nothing', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.finish(id, { status: 'completed', result: { ok: true } }));
        expect(await once(store.ask(id, { a: question('a?') }))).toBe(false);
        expect(await once(store.get(id))).toMatchObject({ status: 'completed', result: { ok: true } });
      });
    });

    describe('answer', () => {
      test('only outstanding keys are taken; a partial answer keeps input_required with the rest; all answered is working', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        await once(store.ask(id, { a: question('a?'), b: question('b?') }));
        expect(await once(store.answer(id, { a: 'A', stray: 'S' }))).toEqual({ found: true, accepted: ['a'] });
        expect(await once(store.get(id))).toMatchObject({ status: 'input_required', inputRequests: { b: question('b?') } });
        expect(await once(store.answer(id, { a: 'again' }))).toEqual({ found: true, accepted: [] });
        expect(await once(store.answer(id, { b: { action: 'accept', content: { ok: true } } }))).toEqual({ found: true, accepted: ['b'] });
        const got = await once(store.get(id));
        expect(got?.status).toBe('working');
        expect(got?.inputRequests).toBeUndefined();
        await harness.until(() => Object.keys(answersOf(followed)).length === 2, 'the runner to hear both answers');
        expect(answersOf(followed)).toEqual({ a: 'A', b: { action: 'accept', content: { ok: true } } });
        expect(followed.signals.every((signal) => signal.kind === 'answers')).toBe(true);
        followed.stop();
      });

      test('racing answers: each key is taken by exactly one, and the runner gets exactly the accepted answers', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        await once(store.ask(id, { a: question('a?'), b: question('b?'), c: question('c?') }));
        const racers = ['r0', 'r1', 'r2', 'r3', 'r4'];
        const answers = await Promise.all(racers.map((racer) => once(store.answer(id, { a: racer, b: racer, c: racer, d: racer }))));
        const taken = answers.flatMap((answer) => (answer.found ? answer.accepted : []));
        expect([...taken].sort()).toEqual(['a', 'b', 'c']);
        const expected: Record<string, unknown> = {};
        answers.forEach((answer, i) => {
          if (answer.found) for (const key of answer.accepted) expected[key] = racers[i];
        });
        await harness.until(() => Object.keys(answersOf(followed)).length === 3, 'the runner to hear the three answers');
        expect(answersOf(followed)).toEqual(expected);
        const heard = followed.signals.flatMap((signal) => (signal.kind === 'answers' ? Object.keys(signal.responses) : []));
        expect(heard.sort()).toEqual(['a', 'b', 'c']);
        expect((await once(store.get(id)))?.status).toBe('working');
        followed.stop();
      });

      test('an answer to an ended task takes nothing', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.ask(id, { a: question('a?') }));
        await once(store.cancel(id));
        expect(await once(store.answer(id, { a: 'late' }))).toEqual({ found: true, accepted: [] });
      });
    });

    describe('finish and cancel: the first terminal write wins', () => {
      test('a completed task keeps its first ending; a second finish is false', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.ask(id, { a: question('a?') }));
        expect(await once(store.finish(id, { status: 'completed', result: { content: [], n: 1 } }))).toBe(true);
        expect(await once(store.finish(id, { status: 'failed', error: { code: -32603, message: 'late' } }))).toBe(false);
        expect(await once(store.finish(id, { status: 'completed', result: { n: 2 } }))).toBe(false);
        const got = await once(store.get(id));
        expect(got).toMatchObject({ status: 'completed', result: { content: [], n: 1 } });
        expect(got?.inputRequests).toBeUndefined();
        expect(got?.error).toBeUndefined();
      });

      test('a failed task keeps its error and status message', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const error = { code: -32000, message: 'the tool failed', data: { why: 'because' } };
        expect(await once(store.finish(id, { status: 'failed', error, statusMessage: 'it broke' }))).toBe(true);
        expect(await once(store.get(id))).toMatchObject({ status: 'failed', error, statusMessage: 'it broke' });
      });

      test('finish after cancel is false and leaves the task cancelled, with no result', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        expect(await once(store.cancel(id))).toBe(true);
        const cancelled = await once(store.get(id));
        expect(await once(store.finish(id, { status: 'completed', result: { n: 1 } }))).toBe(false);
        const got = await once(store.get(id));
        expect(got).toEqual(cancelled);
        expect(got?.status).toBe('cancelled');
        expect(got?.result).toBeUndefined();
      });

      test('cancel after completion is an idempotent true; the task stays completed', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.finish(id, { status: 'completed', result: { n: 1 } }));
        expect(await once(store.cancel(id))).toBe(true);
        expect(await once(store.cancel(id))).toBe(true);
        expect(await once(store.get(id))).toMatchObject({ status: 'completed', result: { n: 1 } });
      });

      test('cancel drops the outstanding questions and sends the follower a stop', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        await once(store.ask(id, { a: question('a?') }));
        expect(await once(store.cancel(id))).toBe(true);
        await harness.until(() => followed.done, 'the follower to be stopped');
        expect(followed.signals).toEqual([{ kind: 'stop', reason: 'cancelled' }]);
        const got = await once(store.get(id));
        expect(got?.status).toBe('cancelled');
        expect(got?.inputRequests).toBeUndefined();
        expect(await once(store.cancel(id))).toBe(true);
      });

      test('a follow that starts after the cancel is stopped at once', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        await once(store.cancel(id));
        const followed = followTask(store, id);
        await harness.until(() => followed.done, 'the late follower to be stopped');
        expect(followed.signals).toEqual([{ kind: 'stop', reason: 'cancelled' }]);
      });

      test.each(['completed', 'failed', 'cancelled'] as const)('the runner finishing (%s) ends its follow with no stop', async (status) => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        const ending =
          status === 'completed'
            ? { status, result: { n: 1 } }
            : status === 'failed'
              ? { status, error: { code: -32603, message: 'no' } }
              : { status, statusMessage: 'the runner gave up' };
        expect(await once(store.finish(id, ending))).toBe(true);
        await harness.until(() => followed.done, 'the follow to end');
        // Nothing more reaches the runner, not even the expiry.
        await harness.advance(harness.ttlMs + harness.marginMs);
        expect(followed.signals).toEqual([]);
      });
    });

    describe('expiry', () => {
      test('a task is there just before ttlMs and gone at it; its follower is told it expired', async () => {
        const store = await harness.store();
        const id = await newTask(store);
        const followed = followTask(store, id);
        await harness.advance(harness.ttlMs - harness.marginMs);
        expect((await once(store.get(id)))?.taskId).toBe(id);
        expect(followed.signals).toEqual([]);
        await harness.advance(harness.marginMs);
        expect(await once(store.get(id))).toBeUndefined();
        await harness.until(() => followed.done, 'the follower to be told');
        expect(followed.signals).toEqual([{ kind: 'stop', reason: 'expired' }]);
        expect(await once(store.answer(id, { a: 1 }))).toEqual({ found: false });
        expect(await once(store.cancel(id))).toBe(false);
        expect(await once(store.finish(id, { status: 'completed', result: {} }))).toBe(false);
      });

      test('an ended task is kept until ttlMs too, then forgotten, and its room given back', async () => {
        const store = await harness.store({ maxTasks: 1, maxTasksPerOwner: 1 });
        const id = await newTask(store);
        await once(store.finish(id, { status: 'completed', result: { n: 1 } }));
        expect((await once(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }))).created).toBe(false);
        await harness.advance(harness.ttlMs - harness.marginMs);
        expect((await once(store.get(id)))?.status).toBe('completed');
        await harness.advance(harness.marginMs);
        expect(await once(store.get(id))).toBeUndefined();
        await expect(newTask(store)).resolves.toEqual(expect.any(String));
      });
    });

    describe('close', () => {
      test('stops every follower here and refuses creation; idempotent', async () => {
        const store = await harness.store();
        const first = followTask(store, await newTask(store));
        const second = followTask(store, await newTask(store, 'bob'));
        await harness.advance(1);
        store.close?.();
        store.close?.();
        await harness.until(() => first.done && second.done, 'both followers to be stopped');
        expect(first.signals).toEqual([{ kind: 'stop', reason: 'closed' }]);
        expect(second.signals).toEqual([{ kind: 'stop', reason: 'closed' }]);
        const refused = await once(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
        expect(refused).toEqual({ created: false, reason: expect.any(String) });
      });
    });
  });
}
