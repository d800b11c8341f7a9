/**
 * Shared by the RedisTaskStore tests: a store on a deployment of its own (or
 * a given one: several stores on one deployment are several nodes), with a
 * logger that keeps its lines, and a bounded real-time wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { clusterKeys, type ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from '../../cluster/redis/task-store.js';
import type { TaskStoreSetup } from '../../lib/ports/task-store.js';
import { memoryLogger } from './permit-helpers.js';
import type { TaskBounds } from '../tasks/task-store-contract.js';

let deployments = 0;
/** A deployment no other test uses. */
export function taskKeys(): ClusterKeys {
  deployments += 1;
  return clusterKeys(`tasks-${process.pid}-${deployments}`);
}

export interface StoreOn {
  readonly link: RedisLink;
  readonly keys: ClusterKeys;
  readonly ttlMs: number;
  readonly bounds?: Partial<TaskBounds> | undefined;
  readonly options?: Partial<RedisTaskStoreOptions> | undefined;
  readonly scheduler?: SchedulerLike | undefined;
}

/** A RedisTaskStore (one node) and the lines it logged. */
export function taskStoreOn(on: StoreOn): { store: RedisTaskStore; logger: ReturnType<typeof memoryLogger> } {
  const logger = memoryLogger();
  const setup: TaskStoreSetup = {
    ttlMs: on.ttlMs,
    pollIntervalMs: 500,
    maxTasks: 100,
    maxTasksPerOwner: 50,
    maxRetainedBytes: 1 << 20,
    ...on.bounds,
    scheduler: on.scheduler ?? asyncScheduler,
    logger,
  };
  return { store: new RedisTaskStore({ link: on.link, keys: on.keys, ...on.options }, setup), logger };
}

/** Resolves once `check()` holds, polling every 10 ms for at most `timeoutMs`; else throws naming `what`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  for (let waited = 0; waited <= timeoutMs; waited += 10) {
    if (check()) return;
    await sleep(10);
  }
  throw new Error(`not so within ${timeoutMs} ms: ${what}`);
}
