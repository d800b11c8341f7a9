/**
 * The in-memory task store in marble diagrams (TestScheduler, virtual time):
 * what the process running a task hears while it follows it. Answers racing
 * in one frame are taken once; a cancel stops the runner in the frame it
 * comes; the TTL stops it at exactly its frame; a finish ends the follow
 * without a stop; and a task past its count bound is refused in its frame.
 */
import { map, mergeMap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expect, test } from 'vitest';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import type { TaskSignal } from '../../lib/ports/task-store.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const QUESTION = { method: 'elicitation/create', params: { message: 'ok?', requestedSchema: { type: 'object', properties: {} } } } as const;

function scheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

function storeOn(ts: TestScheduler, ttlMs = 10, maxTasksPerOwner = 10) {
  const store = new MemoryTaskStore({ ttlMs, pollIntervalMs: 1, maxTasks: 100, maxTasksPerOwner, maxRetainedBytes: 1 << 20, scheduler: ts, logger: quiet });
  const created = store.createNow({ owner: 'alice', method: 'tools/call', name: 'job' });
  if (!created.created) throw new Error('no task');
  return { store, taskId: created.task.taskId };
}

const answer = (value: string): TaskSignal => ({ kind: 'answers', responses: { k: { action: 'accept', content: { value } } } });

test('answers racing in one frame: the runner hears exactly one, the first', () => {
  const ts = scheduler();
  ts.run(({ cold, expectObservable }) => {
    const { store, taskId } = storeOn(ts, 100);
    store.askNow(taskId, { k: QUESTION });
    const updates = cold('--(abc)', { a: 'first', b: 'second', c: 'third' });
    updates.pipe(mergeMap((value) => store.answer(taskId, { k: { action: 'accept', content: { value } } }))).subscribe();
    expectObservable(store.follow(taskId), '^ 5ms !').toBe('--a', { a: answer('first') });
  });
});

test('a cancel stops the runner in its frame; the record is cancelled and stays so', () => {
  const ts = scheduler();
  ts.run(({ cold, expectObservable }) => {
    const { store, taskId } = storeOn(ts, 100);
    cold('---c').pipe(mergeMap(() => store.cancel(taskId))).subscribe();
    cold('-----f').pipe(mergeMap(() => store.finish(taskId, { status: 'completed', result: { content: [] } }))).subscribe();
    expectObservable(store.follow(taskId)).toBe('---(s|)', { s: { kind: 'stop', reason: 'cancelled' } });
    expectObservable(cold('------g').pipe(mergeMap(() => store.get(taskId)), map((task) => task?.status))).toBe('------x', { x: 'cancelled' });
  });
});

test('the TTL stops the runner at exactly its frame, and the task is gone from then on', () => {
  const ts = scheduler();
  ts.run(({ cold, expectObservable }) => {
    const { store, taskId } = storeOn(ts, 10);
    expectObservable(store.follow(taskId)).toBe('10ms (s|)', { s: { kind: 'stop', reason: 'expired' } });
    expectObservable(cold('9ms a 9ms b').pipe(mergeMap(() => store.get(taskId)), map((task) => task?.status ?? 'gone'))).toBe('9ms a 9ms b', { a: 'working', b: 'gone' });
  });
});

test("the runner's own finish ends its follow with no stop", () => {
  const ts = scheduler();
  ts.run(({ cold, expectObservable }) => {
    const { store, taskId } = storeOn(ts, 100);
    cold('----f').pipe(mergeMap(() => store.finish(taskId, { status: 'completed', result: { content: [] } }))).subscribe();
    expectObservable(store.follow(taskId)).toBe('----|');
  });
});

test('past its owner bound a creation is refused in its frame; the expiry of one makes room at that frame', () => {
  const ts = scheduler();
  ts.run(({ cold, expectObservable }) => {
    const { store } = storeOn(ts, 10, 1);
    const attempts = cold('-a 9ms b', { a: 'alice', b: 'alice' }).pipe(
      mergeMap((owner) => store.create({ owner, method: 'tools/call', name: 'job' })),
      map((creation) => (creation.created ? 'created' : 'refused')),
    );
    expectObservable(attempts).toBe('-r 9ms c', { r: 'refused', c: 'created' });
  });
});
