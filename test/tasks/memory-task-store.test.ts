/**
 * MemoryTaskStore against the TaskStore contract, on a virtual clock: every
 * store of a test shares one VirtualTimeScheduler, and `advance` moves it by
 * exactly the time asked (no real waits). Then what only the in-memory store
 * promises: `outstanding()` and its retained bytes.
 */
import { firstValueFrom, VirtualTimeScheduler } from 'rxjs';
import { expect, test } from 'vitest';
import { MemoryTaskStore } from '../../lib/tasks/memory-task-store.js';
import type { TaskStoreSetup } from '../../lib/ports/task-store.js';
import { followTask, taskStoreContract, type TaskBounds } from './task-store-contract.js';

const TTL_MS = 60_000;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let clock = new VirtualTimeScheduler();

function setupWith(bounds: Partial<TaskBounds> = {}): TaskStoreSetup {
  return { ttlMs: TTL_MS, pollIntervalMs: 1000, maxTasks: 100, maxTasksPerOwner: 50, maxRetainedBytes: 1 << 20, ...bounds, scheduler: clock, logger: quiet };
}

/** Moves the virtual clock `ms` on, running whatever falls due up to then, and stops there. */
function advance(ms: number): void {
  const target = clock.now() + ms;
  clock.schedule(() => {}, ms);
  clock.maxFrames = target;
  clock.flush();
}

taskStoreContract('MemoryTaskStore', {
  ttlMs: TTL_MS,
  marginMs: 1,
  store: (bounds) => {
    clock = new VirtualTimeScheduler();
    return Promise.resolve(new MemoryTaskStore(setupWith(bounds)));
  },
  advance: (ms) => Promise.resolve(advance(ms)),
  // Nothing crosses a network: what is not so now never will be.
  until: (check, what) => (check() ? Promise.resolve() : Promise.reject(new Error(`not so: ${what}`))),
});

test('outstanding and retained bytes go back to zero once every task expired', async () => {
  clock = new VirtualTimeScheduler();
  const store = new MemoryTaskStore(setupWith());
  const created = await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
  if (!created.created) throw new Error('refused');
  await firstValueFrom(store.ask(created.task.taskId, { a: { method: 'roots/list' } }));
  await firstValueFrom(store.finish(created.task.taskId, { status: 'completed', result: { text: 'done' } }));
  expect(store.outstanding()).toBe(1);
  expect(store.retainedBytes()).toBeGreaterThan(512);
  advance(TTL_MS);
  expect(store.outstanding()).toBe(0);
  expect(store.retainedBytes()).toBe(0);
});

test('a get at the deadline finds nothing even before the expiry timer ran', async () => {
  clock = new VirtualTimeScheduler();
  const store = new MemoryTaskStore(setupWith());
  // Scheduled before the task exists, so at the deadline it runs before the store's expiry timer.
  let taskId = '';
  const seen: unknown[] = [];
  clock.schedule(() => store.get(taskId).subscribe((record) => seen.push(record)), TTL_MS);
  const created = await firstValueFrom(store.create({ owner: 'alice', method: 'tools/call', name: 'slow' }));
  if (!created.created) throw new Error('refused');
  taskId = created.task.taskId;
  const followed = followTask(store, taskId);
  advance(TTL_MS);
  expect(seen).toEqual([undefined]);
  expect(followed.signals).toEqual([{ kind: 'stop', reason: 'expired' }]);
});
