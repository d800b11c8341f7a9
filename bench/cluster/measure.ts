/**
 * One measured phase of the cluster bench: warmup, then a closed loop of
 * `concurrency` outstanding steps, with the CPU of every process involved read
 * around the measured phase from /proc (nodes summed, the proxy, Redis) and
 * the driver's own from process.cpuUsage(), each per completed step in µs.
 */
import { closedLoop } from '../driver/closed-loop.js';
import { cpuSeconds } from '../driver/proc-stats.js';
import { percentile } from '../driver/stats.js';

export interface Pids {
  readonly nodes: readonly number[];
  readonly proxy?: number;
  readonly redis?: number;
}

export interface PhaseOptions {
  readonly concurrency: number;
  readonly calls: number;
  readonly warmup: number;
  readonly maxMs: number;
}

export interface Phase {
  readonly callsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** CPU µs per step: all nodes together, the proxy, Redis, the driver. */
  readonly nodeUs: number | undefined;
  readonly proxyUs: number | undefined;
  readonly redisUs: number | undefined;
  readonly driverUs: number;
  readonly completed: number;
  readonly failed: number;
  readonly firstError: string | undefined;
}

function sum(pids: readonly number[]): number | undefined {
  let total = 0;
  for (const pid of pids) {
    const seconds = cpuSeconds(pid);
    if (seconds === undefined) return undefined;
    total += seconds;
  }
  return total;
}

const perStep = (before: number | undefined, after: number | undefined, steps: number) =>
  before === undefined || after === undefined || steps === 0 ? undefined : ((after - before) * 1e6) / steps;

export async function measurePhase(pids: Pids, step: () => Promise<void>, options: PhaseOptions): Promise<Phase> {
  const warm = await closedLoop(step, { concurrency: options.concurrency, calls: options.warmup, maxMs: options.maxMs });
  if (warm.failed > 0) throw new Error(`warmup failed: ${warm.firstError ?? 'unknown'}`);
  const cpu = (pid: number | undefined) => (pid === undefined ? undefined : cpuSeconds(pid));
  const before = { nodes: sum(pids.nodes), proxy: cpu(pids.proxy), redis: cpu(pids.redis), driver: process.cpuUsage() };
  const loop = await closedLoop(step, { concurrency: options.concurrency, calls: options.calls, maxMs: options.maxMs });
  const driver = process.cpuUsage(before.driver);
  const after = { nodes: sum(pids.nodes), proxy: cpu(pids.proxy), redis: cpu(pids.redis) };
  const done = loop.completed;
  return {
    callsPerSec: loop.elapsedMs > 0 ? (done * 1000) / loop.elapsedMs : 0,
    p50Ms: percentile(loop.latenciesMs, 50),
    p99Ms: percentile(loop.latenciesMs, 99),
    nodeUs: perStep(before.nodes, after.nodes, done),
    proxyUs: perStep(before.proxy, after.proxy, done),
    redisUs: perStep(before.redis, after.redis, done),
    driverUs: done === 0 ? 0 : (driver.user + driver.system) / done,
    completed: done,
    failed: loop.failed,
    firstError: loop.firstError,
  };
}
