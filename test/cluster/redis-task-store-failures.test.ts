/**
 * RedisTaskStore fails closed: a Redis error, no answer within timeoutMs (on
 * the virtual clock) or a reply not of the script's shape is logged; create
 * refuses with `task store unavailable`, every other operation errors with
 * that message, and a follow keeps waiting (its renewal is retried), never
 * erroring. Then a real Redis stopped under a store: create refuses and
 * nothing hangs.
 */
import { firstValueFrom, lastValueFrom, toArray, VirtualTimeScheduler, type Observable } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { clusterKeys } from '../../cluster/redis/keys.js';
import { connectRedis } from '../../cluster/redis/connect.js';
import type { RedisLink, RedisReply } from '../../cluster/redis/link.js';
import { TASK_STORE_UNAVAILABLE } from '../../cluster/redis/task-store.js';
import { startRedis } from '../helpers/redis-server.js';
import { followTask } from '../tasks/task-store-contract.js';
import { taskStoreOn } from './task-store-fixture.js';

const ID = 'task-AAAAAAAAAAAAAAAAAAAAAAAA';

function fakeLink(run: () => Promise<RedisReply>): RedisLink {
  return {
    run,
    command: () => Promise.reject(new Error('not used')),
    publish: () => Promise.reject(new Error('not used')),
    subscribe: () => Promise.resolve(() => Promise.resolve()),
    close: () => Promise.resolve(),
  };
}

/** Every operation but follow, each as what it settled to: a value, or its error's message. */
async function everyOperation(run: () => Promise<RedisReply>, scheduler?: VirtualTimeScheduler) {
  const { store, logger } = taskStoreOn({ link: fakeLink(run), keys: clusterKeys('failures'), ttlMs: 1000, scheduler, options: { timeoutMs: 500 } });
  const settle = <T>(source: Observable<T>): Promise<T | string> =>
    firstValueFrom(source).catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
  const outcomes = {
    create: await settle(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' })),
    get: await settle(store.get(ID)),
    ask: await settle(store.ask(ID, { a: { method: 'roots/list' } })),
    answer: await settle(store.answer(ID, { a: 1 })),
    finish: await settle(store.finish(ID, { status: 'completed', result: {} })),
    cancel: await settle(store.cancel(ID)),
  };
  return { outcomes, logger };
}

const REFUSED = {
  create: { created: false, reason: TASK_STORE_UNAVAILABLE },
  get: TASK_STORE_UNAVAILABLE,
  ask: TASK_STORE_UNAVAILABLE,
  answer: TASK_STORE_UNAVAILABLE,
  finish: TASK_STORE_UNAVAILABLE,
  cancel: TASK_STORE_UNAVAILABLE,
};

describe('a failing Redis: refuse or error, log, never hang', () => {
  test.each<[string, () => Promise<RedisReply>]>([
    ['an error', () => Promise.reject(new Error('ECONNREFUSED'))],
    ['a reply of another shape', () => Promise.resolve('OK')],
    ['an unknown word', () => Promise.resolve(['granted', 1])],
    ['a record with an unknown status', () => Promise.resolve(['task', 1, ['s', 'sleeping', 'o', 'a', 'm', 'm', 'n', 'n', 'c', '1', 'u', '1', 't', '1', 'p', '1'], []])],
    ['a record with a broken hash', () => Promise.resolve(['task', 1, ['s'], []])],
  ])('%s', async (_what, reply) => {
    const { outcomes, logger } = await everyOperation(reply);
    expect(outcomes).toEqual(REFUSED);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(6);
  });

  test('no answer within timeoutMs (virtual clock): refused once the time is up, not before', () => {
    const clock = new VirtualTimeScheduler();
    const { store, logger } = taskStoreOn({ link: fakeLink(() => new Promise(() => {})), keys: clusterKeys('failures'), ttlMs: 1000, scheduler: clock, options: { timeoutMs: 500 } });
    const created: unknown[] = [];
    const got: unknown[] = [];
    store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }).subscribe((answer) => created.push(answer));
    store.get(ID).subscribe({ next: (record) => got.push(record), error: (err: Error) => got.push(err.message) });
    clock.maxFrames = 499;
    clock.flush();
    expect([created, got]).toEqual([[], []]);
    clock.maxFrames = 500;
    clock.flush();
    expect(created).toEqual([{ created: false, reason: TASK_STORE_UNAVAILABLE }]);
    expect(got).toEqual([TASK_STORE_UNAVAILABLE]);
    expect(logger.lines.filter((line) => line.level === 'error')).toHaveLength(2);
  });

  test('a follow while Redis fails neither errors nor ends; its renewal is retried every leaseMs/3', async () => {
    const clock = new VirtualTimeScheduler();
    let calls = 0;
    const { store, logger } = taskStoreOn({
      link: fakeLink(() => ((calls += 1), Promise.reject(new Error('ECONNREFUSED')))),
      keys: clusterKeys('failures'),
      ttlMs: 1000,
      scheduler: clock,
      options: { leaseMs: 300 },
    });
    const followed = followTask(store, ID);
    // One period at a time, the failed renewal settling in between (a tick while one is in flight is skipped).
    for (let tick = 1; tick <= 10; tick += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      clock.maxFrames = tick * 100;
      clock.flush();
    }
    await new Promise((resolve) => setImmediate(resolve));
    // The first renewal at the follow, then one per leaseMs/3 (100 ms).
    expect(calls).toBe(11);
    expect(followed.done).toBe(false);
    expect(followed.signals).toEqual([]);
    // One warning per lease at most, not one per retry.
    expect(logger.lines.filter((line) => line.level === 'warn').length).toBeLessThanOrEqual(4);
    followed.stop();
  });

  test('ids that are not base64url words are unknown without a round trip', async () => {
    let calls = 0;
    const { store } = taskStoreOn({ link: fakeLink(() => ((calls += 1), Promise.resolve('never'))), keys: clusterKeys('failures'), ttlMs: 1000 });
    const odd = 'a b\r\nFLUSHALL';
    expect(await firstValueFrom(store.get(odd))).toBeUndefined();
    expect(await firstValueFrom(store.answer(odd, { a: 1 }))).toEqual({ found: false });
    expect(await firstValueFrom(store.cancel(odd))).toBe(false);
    expect(await lastValueFrom(store.follow(odd).pipe(toArray()))).toEqual([{ kind: 'stop', reason: 'expired' }]);
    expect(calls).toBe(0);
  });
});

describe('a real Redis stopped under the store', () => {
  test('create refuses clearly and get errors, each within its timeout; once Redis is back, creation works again', async () => {
    let redis = await startRedis();
    const port = redis.port;
    const link = await connectRedis(redis.url);
    const { store } = taskStoreOn({ link, keys: clusterKeys('stopped'), ttlMs: 5000, options: { timeoutMs: 400 } });
    try {
      const first = await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
      expect(first.created).toBe(true);
      await redis.stop();
      const started = Date.now();
      expect(await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }))).toEqual({ created: false, reason: TASK_STORE_UNAVAILABLE });
      await expect(firstValueFrom(store.get(first.created ? first.task.taskId : ID))).rejects.toThrow(TASK_STORE_UNAVAILABLE);
      expect(Date.now() - started).toBeLessThan(2000);
      // Back on its port (empty: no persistence), node-redis reconnects by itself. Bounded: 50 tries over 5 s.
      redis = await startRedis({ port });
      let again = false;
      for (let tries = 0; tries < 50 && !again; tries += 1) {
        again = (await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }))).created;
        if (!again) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(again).toBe(true);
    } finally {
      store.close();
      // Closed while Redis is up: a node-redis close waits for a server that is gone.
      await link.close().catch(() => undefined);
      await redis.stop();
    }
  }, 20_000);
});
