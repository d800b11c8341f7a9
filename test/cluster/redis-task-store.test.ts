/**
 * RedisTaskStore against the TaskStore contract on a real Redis (a private
 * redis-server on loopback): each store a deployment of its own. Time is
 * Redis TIME, so the expiry tests wait for real, briefly (a 600 ms ttl, a
 * 150 ms margin either side of it). The lease is longer than the ttl here,
 * so no task fails for want of a renewal; leases are tested in
 * redis-task-store-nodes.test.ts. Then: every key the store writes has a PX.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom } from 'rxjs';
import { afterAll, expect, test } from 'vitest';
import type { RedisLink } from '../../cluster/redis/link.js';
import type { RedisTaskStore } from '../../cluster/redis/task-store.js';
import { redisTopologyForSuite } from '../helpers/redis-server.js';
import { followTask, taskStoreContract } from '../tasks/task-store-contract.js';
import { eventually, taskKeys, taskStoreOn } from './task-store-fixture.js';

const TTL_MS = 600;
let link: RedisLink;
const stores: RedisTaskStore[] = [];

redisTopologyForSuite(false, async (redis) => {
  link = await redis.link();
});
afterAll(() => {
  for (const store of stores) store.close();
});

taskStoreContract('RedisTaskStore', {
  ttlMs: TTL_MS,
  marginMs: 150,
  store: (bounds) => {
    const { store } = taskStoreOn({ link, keys: taskKeys(), ttlMs: TTL_MS, bounds, options: { leaseMs: 5000 } });
    stores.push(store);
    return Promise.resolve(store);
  },
  advance: (ms) => sleep(ms),
  until: (check, what) => eventually(check, what),
});

test('every key the store wrote has a PX, and the index keys outlive the tasks', async () => {
  const keys = taskKeys();
  const { store } = taskStoreOn({ link, keys, ttlMs: TTL_MS, options: { leaseMs: 5000 } });
  stores.push(store);
  const created = await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
  if (!created.created) throw new Error('refused');
  const id = created.task.taskId;
  const followed = followTask(store, id);
  await firstValueFrom(store.ask(id, { a: { method: 'roots/list' }, b: { method: 'roots/list' } }));
  await firstValueFrom(store.answer(id, { a: 1 }));
  await eventually(() => followed.signals.length === 1, 'the answer to be drained');
  // Nobody drains the mailbox now, so the keys stay put while they are listed.
  followed.stop();
  await firstValueFrom(store.answer(id, { b: 2 }));
  const names = (await link.command(keys.key('x'), ['KEYS', `${keys.tag}*`])) as string[];
  expect(names.length).toBeGreaterThanOrEqual(6);
  for (const name of names) {
    const ttl = Number(await link.command(name, ['PTTL', name]));
    expect(ttl, name).toBeGreaterThan(0);
    if (name.includes(':task:')) expect(ttl, name).toBeLessThanOrEqual(TTL_MS);
  }
  expect(names.some((name) => name.endsWith(':mb'))).toBe(true);
});
