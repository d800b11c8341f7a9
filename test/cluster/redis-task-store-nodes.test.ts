/**
 * RedisTaskStore as several nodes of one deployment: three stores on three
 * links to one Redis, then to a 3-master Redis Cluster (what three processes
 * would have). A task created on
 * A is read on B; an answer on C reaches A's follower; a cancel on B stops
 * it; the bounds hold across nodes under concurrent creates; a runner that
 * stops renewing (its follow ends without a finish: what a node that died
 * looks like) has its task failed by a get on B within one lease, not
 * before. Real time, bounded: every wait has a deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { firstValueFrom } from 'rxjs';
import { afterAll, describe, expect, test } from 'vitest';
import type { ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { RUNNER_GONE, type RedisTaskStore } from '../../cluster/redis/task-store.js';
import { REDIS_TOPOLOGIES, redisTopologyForSuite } from '../helpers/redis-server.js';
import { answersOf, followTask } from '../tasks/task-store-contract.js';
import { eventually, taskKeys, taskStoreOn } from './task-store-fixture.js';
import type { TaskBounds } from '../tasks/task-store-contract.js';

const LEASE_MS = 300;
const opened: RedisTaskStore[] = [];

afterAll(() => {
  for (const store of opened) store.close();
});

async function created(store: RedisTaskStore, owner = 'alice'): Promise<string> {
  const answer = await firstValueFrom(store.create({ owner, method: 'tools/call', name: 'slow' }));
  if (!answer.created) throw new Error(answer.reason);
  return answer.task.taskId;
}

describe.each(REDIS_TOPOLOGIES)('RedisTaskStore across nodes on %s', (_name, clustered) => {
  let links: RedisLink[] = [];
  redisTopologyForSuite(clustered, async (redis) => {
    links = await redis.links(3);
  });

  /** Nodes A, B and C of one new deployment, each on its own link. */
  function nodes(bounds: Partial<TaskBounds> = {}): [RedisTaskStore, RedisTaskStore, RedisTaskStore] {
    const keys: ClusterKeys = taskKeys();
    const made = links.map((link) => taskStoreOn({ link, keys, ttlMs: 30_000, bounds, options: { leaseMs: LEASE_MS } }).store);
    opened.push(...made);
    return made as [RedisTaskStore, RedisTaskStore, RedisTaskStore];
  }

  test('created on A, read on B: the same record, owner included', async () => {
    const [a, b] = nodes();
    const answer = await firstValueFrom(a.create({ owner: 'principal:alice', method: 'tools/call', name: 'slow' }));
    if (!answer.created) throw new Error('refused');
    expect(await firstValueFrom(b.get(answer.task.taskId))).toEqual(answer.task);
  });

  test("asked on A, answered on C: A's follower gets the answers, B reads the rest outstanding", async () => {
    const [a, b, c] = nodes();
    const id = await created(a);
    const followed = followTask(a, id);
    expect(await firstValueFrom(a.ask(id, { a: { method: 'roots/list' }, b: { method: 'roots/list' } }))).toBe(true);
    expect(await firstValueFrom(c.answer(id, { a: { roots: [] }, z: 1 }))).toEqual({ found: true, accepted: ['a'] });
    await eventually(() => followed.signals.length === 1, "A's follower to hear C's answer");
    expect(followed.signals).toEqual([{ kind: 'answers', responses: { a: { roots: [] } } }]);
    expect(await firstValueFrom(b.get(id))).toMatchObject({ status: 'input_required', inputRequests: { b: { method: 'roots/list' } } });
    expect(await firstValueFrom(b.answer(id, { b: 'B' }))).toEqual({ found: true, accepted: ['b'] });
    await eventually(() => followed.signals.length === 2, "A's follower to hear B's answer");
    expect(answersOf(followed)).toEqual({ a: { roots: [] }, b: 'B' });
    followed.stop();
  });

  test('racing answers from three nodes: each key taken once, A hears exactly those', async () => {
    const [a, b, c] = nodes();
    const id = await created(a);
    const followed = followTask(a, id);
    const keys = Array.from({ length: 12 }, (_v, i) => `k${i}`);
    await firstValueFrom(a.ask(id, Object.fromEntries(keys.map((key) => [key, { method: 'roots/list' as const }]))));
    const all = Object.fromEntries(keys.map((key) => [key, key]));
    const replies = await Promise.all([a, b, c, b, c].map((node, i) => firstValueFrom(node.answer(id, Object.fromEntries(keys.map((key) => [key, `${i}`]))))));
    const taken = replies.flatMap((reply) => (reply.found ? reply.accepted : []));
    expect([...taken].sort()).toEqual(Object.keys(all).sort());
    await eventually(() => Object.keys(answersOf(followed)).length === keys.length, 'A to hear every key');
    const expected = Object.fromEntries(replies.flatMap((reply, i) => (reply.found ? reply.accepted.map((key) => [key, `${i}`]) : [])));
    expect(answersOf(followed)).toEqual(expected);
    followed.stop();
  });

  test("cancelled on B: A's follower is stopped, and A's finish after it is false", async () => {
    const [a, b] = nodes();
    const id = await created(a);
    const followed = followTask(a, id);
    await sleep(20);
    expect(await firstValueFrom(b.cancel(id))).toBe(true);
    await eventually(() => followed.done, "A's follower to be stopped");
    expect(followed.signals).toEqual([{ kind: 'stop', reason: 'cancelled' }]);
    expect(await firstValueFrom(a.finish(id, { status: 'completed', result: { n: 1 } }))).toBe(false);
    expect((await firstValueFrom(b.get(id)))?.status).toBe('cancelled');
  });

  test('concurrent creates on three nodes never pass maxTasks or maxTasksPerOwner', async () => {
    const [a, b, c] = nodes({ maxTasks: 5, maxTasksPerOwner: 3 });
    const owners = ['alice', 'bob', 'alice', 'carol', 'alice', 'bob', 'alice', 'carol'];
    const answers = await Promise.all(
      [a, b, c].flatMap((node) => owners.map((owner) => firstValueFrom(node.create({ owner, method: 'tools/call', name: 'slow' })))),
    );
    const made = answers.flatMap((answer) => (answer.created ? [answer.task.owner] : []));
    expect(made).toHaveLength(5);
    expect(made.filter((owner) => owner === 'alice').length).toBeLessThanOrEqual(3);
  });

  test('a runner that stops renewing: working within the lease, failed on a get from B after it', async () => {
    const [a, b] = nodes();
    const id = await created(a);
    const followed = followTask(a, id);
    // Followed for three leases: the renewals keep it working.
    await sleep(3 * LEASE_MS);
    expect((await firstValueFrom(b.get(id)))?.status).toBe('working');
    // The node "dies": its follow ends without a finish, so nothing renews the lease any more.
    followed.stop();
    const stoppedAt = Date.now();
    expect((await firstValueFrom(b.get(id)))?.status).toBe('working');
    await sleep(LEASE_MS + 50 - (Date.now() - stoppedAt));
    const failed = await firstValueFrom(b.get(id));
    expect(failed).toMatchObject({ status: 'failed', error: RUNNER_GONE });
    expect(followed.signals).toEqual([]);
    // The first terminal write stays: the runner's late result is refused, a cancel changes nothing.
    expect(await firstValueFrom(a.finish(id, { status: 'completed', result: {} }))).toBe(false);
    expect(await firstValueFrom(b.cancel(id))).toBe(true);
    expect(await firstValueFrom(a.get(id))).toEqual(failed);
  });

  test('a task never followed fails one lease after its creation', async () => {
    const [a, b] = nodes();
    const id = await created(a);
    expect((await firstValueFrom(b.get(id)))?.status).toBe('working');
    await sleep(LEASE_MS + 50);
    expect(await firstValueFrom(b.get(id))).toMatchObject({ status: 'failed', error: RUNNER_GONE });
  });

  test('a runner still alive when its lease was declared lapsed is told to stop at its next renewal', async () => {
    const [a, b] = nodes();
    const id = await created(a);
    // No follow until the lease lapsed and B failed the task: then the follow's first renewal hears it.
    await sleep(LEASE_MS + 50);
    expect((await firstValueFrom(b.get(id)))?.status).toBe('failed');
    const followed = followTask(a, id);
    await eventually(() => followed.done, 'the late runner to be stopped');
    expect(followed.signals).toEqual([{ kind: 'stop', reason: 'expired' }]);
  });

  test('close on A stops its followers only; B still reads and cancels the task', async () => {
    const [a, b] = nodes();
    const id = await created(a);
    const followed = followTask(a, id);
    a.close();
    expect(followed.signals).toEqual([{ kind: 'stop', reason: 'closed' }]);
    expect((await firstValueFrom(b.get(id)))?.status).toBe('working');
    expect(await firstValueFrom(b.cancel(id))).toBe(true);
  });
});
