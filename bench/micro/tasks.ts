/**
 * The tasks extension's costs, in one process (issue 19):
 *
 * 1. `at-once`: CPU per call of an echo tools/call on the 2026-07-28 wire,
 *    plain, against the same echo declared `taskSupport: 'optional'` with a
 *    `taskAfterMs` policy, called by a request that declared the extension:
 *    a call that could become a task but answers at once. Rounds alternate
 *    the two, so a busy machine slows both alike; the median of the rounds.
 *    The goal: at most 1.05x the plain call's CPU.
 * 2. `round-trip`: a task's creation (tools/call answered with the task)
 *    and one tasks/get of it, per task, CPU and wall time, on the in-memory
 *    store, and with `--redis redis://127.0.0.1:PORT` on the Redis one.
 * 3. `outstanding`: 10,000 tasks whose handlers wait (a one-hour sleep):
 *    heap and RSS before and after, per task.
 *
 *   npm run build && node --expose-gc dist/bench/micro/tasks.js [--calls N] [--rounds N] [--tasks N] [--redis redis://127.0.0.1:PORT]
 */
import { asyncScheduler } from 'rxjs';
import { createServer, Registry, type McpServer, type ServerOptions } from '../../lib/index.js';
import { ECHO_ARGS } from '../driver/tool-call.js';
import { option } from './option.js';

const CALLS = Number(option('--calls', '20000'));
const ROUNDS = Number(option('--rounds', '9'));
const TASKS = Number(option('--tasks', '10000'));
/** A Redis URL (loopback only) for the round trip and the outstanding tasks on the Redis task store. */
const REDIS = option('--redis', '');

const TASKS_ID = 'io.modelcontextprotocol/tasks';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_ID]: {} } },
  'io.modelcontextprotocol/clientInfo': { name: 'rxmcp-bench-tasks', version: '1.0.0' },
};

const call = (id: number, name: string, args: Record<string, unknown> = ECHO_ARGS) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: META } });
const get = (id: number, taskId: string) => ({ jsonrpc: '2.0', id, method: 'tasks/get', params: { taskId, _meta: META } });

async function server(extra: Partial<ServerOptions> = {}): Promise<McpServer> {
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: (args) => JSON.stringify(args) })
    .registerTool({ name: 'echo_maybe_task', taskSupport: 'optional', taskAfterMs: 100, handler: (args) => JSON.stringify(args) })
    .registerTool({
      name: 'wait_long',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        await ctx.sleep(3_600_000);
        return 'woke';
      },
    });
  return createServer({ registry, scheduler: asyncScheduler, maxInFlight: 1024, tasks: { maxTasks: Math.max(TASKS, 10_000) * 2, maxTasksPerOwner: Math.max(TASKS, 10_000) * 2 }, ...extra });
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function cpuPerCall(s: McpServer, name: string): Promise<number> {
  const start = cpuMicros();
  for (let i = 0; i < CALLS; i += 16) {
    const burst: Promise<unknown>[] = [];
    for (let j = 0; j < 16; j += 1) burst.push(s.handleMessage(call(i + j, name)));
    await Promise.all(burst);
  }
  return (cpuMicros() - start) / CALLS;
}

async function atOnce(): Promise<void> {
  const s = await server();
  const check = (await s.handleMessage(call(1, 'echo_maybe_task'))) as { result: { resultType: string } };
  if (check.result.resultType !== 'complete') throw new Error('echo_maybe_task became a task: the bench measures nothing');
  await cpuPerCall(s, 'echo');
  await cpuPerCall(s, 'echo_maybe_task');
  const plain: number[] = [];
  const maybe: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    if (round % 2 === 0) {
      plain.push(await cpuPerCall(s, 'echo'));
      maybe.push(await cpuPerCall(s, 'echo_maybe_task'));
    } else {
      maybe.push(await cpuPerCall(s, 'echo_maybe_task'));
      plain.push(await cpuPerCall(s, 'echo'));
    }
  }
  const ratios = plain.map((p, i) => maybe[i]! / p);
  console.log(`at-once   plain ${median(plain).toFixed(2)} µs/call   could-be-task ${median(maybe).toFixed(2)} µs/call   ratio median ${median(ratios).toFixed(3)}x (goal <= 1.05x; ${ROUNDS} rounds of ${CALLS})`);
  s.close();
}

/** The task store the round trip and the outstanding tasks use: in memory, or Redis (`--redis`). */
async function storeOption(): Promise<{ label: string; extra: Partial<ServerOptions>; close: () => Promise<void> }> {
  if (REDIS === '') return { label: 'in memory', extra: {}, close: async () => {} };
  if (!/^redis:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(REDIS)) throw new Error('--redis must be a loopback URL');
  const { connectRedis, clusterKeys, redisTaskStore } = await import('../../cluster/redis/index.js');
  const link = await connectRedis(REDIS);
  const keys = clusterKeys(`bench-tasks-${process.pid}`);
  const bound = Math.max(TASKS, 10_000) * 2;
  return {
    label: 'on Redis',
    extra: { tasks: { maxTasks: bound, maxTasksPerOwner: bound, store: redisTaskStore({ link, keys }) } },
    close: () => link.close(),
  };
}

async function roundTrip(): Promise<void> {
  const store = await storeOption();
  const s = await server(store.extra);
  const n = Math.min(CALLS, 5000);
  const start = cpuMicros();
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) {
    const created = (await s.handleMessage(call(i, 'wait_long'))) as { result: { taskId: string } };
    await s.handleMessage(get(i, created.result.taskId));
  }
  const cpu = (cpuMicros() - start) / n;
  const wall = ((performance.now() - t0) * 1000) / n;
  console.log(`round-trip  create + tasks/get: ${cpu.toFixed(1)} µs CPU, ${wall.toFixed(1)} µs wall per task (${store.label}, ${n} tasks)`);
  s.close();
  await store.close();
}

async function outstanding(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  const store = await storeOption();
  const s = await server(store.extra);
  gc?.();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage().rss;
  for (let i = 0; i < TASKS; i += 1) await s.handleMessage(call(i, 'wait_long'));
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  const stats = s.stats();
  console.log(
    `outstanding ${store.label}: ${stats.taskRuns} handlers waiting, ${stats.tasks} tasks held by this process's store: heap +${((heapUsed - heap0) / 1048576).toFixed(1)} MB (${((heapUsed - heap0) / TASKS / 1024).toFixed(2)} KB per task), RSS ${(rss / 1048576).toFixed(0)} MB (+${((rss - rss0) / 1048576).toFixed(0)} MB)${gc === undefined ? ' [run with --expose-gc for exact heap]' : ''}`,
  );
  s.close();
  await store.close();
}

await atOnce();
await roundTrip();
await outstanding();
