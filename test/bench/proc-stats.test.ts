/**
 * The bench's kernel readings (bench/driver/proc-stats.ts): CPU spent on a
 * thread other than the main one is counted as helper-thread CPU, and the
 * main thread's own work is not. A fixed amount of work, not a duration:
 * the assertions hold however busy the machine is.
 */
import { Worker } from 'node:worker_threads';
import { describe, expect, test } from 'vitest';
import { cpuSeconds, helperCpuSeconds } from '../../bench/driver/proc-stats.js';

const onLinux = process.platform === 'linux';

/** Runs `iterations` of arithmetic on a worker thread, and answers with the worker still alive (its thread still listed). */
function spinOnWorker(iterations: number): Promise<Worker> {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     let x = 0;
     for (let i = 0; i < workerData; i++) x = (x + i * 7) % 1000003;
     parentPort.postMessage(x);`,
    { eval: true, workerData: iterations },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

/** The same work on the calling thread. */
function spinHere(iterations: number): number {
  let x = 0;
  for (let i = 0; i < iterations; i++) x = (x + i * 7) % 1000003;
  return x;
}

describe.skipIf(!onLinux)('helperCpuSeconds (Linux /proc)', () => {
  test('work on another thread shows as helper-thread CPU, within the process total', async () => {
    // The total is read first and last, so a tick between two reads can only widen it against the helpers'.
    const totalBefore = cpuSeconds(process.pid)!;
    const helpersBefore = helperCpuSeconds(process.pid)!;
    const worker = await spinOnWorker(1e8);
    const helpersAfter = helperCpuSeconds(process.pid)!;
    const totalAfter = cpuSeconds(process.pid)!;
    await worker.terminate();
    expect(helpersAfter - helpersBefore).toBeGreaterThanOrEqual(0.05);
    // Both are whole clock ticks divided into seconds: equal counts may differ in the last bit of a double.
    expect(totalAfter - totalBefore).toBeGreaterThanOrEqual(helpersAfter - helpersBefore - 1e-9);
  });

  test('work on the main thread does not', () => {
    const helpersBefore = helperCpuSeconds(process.pid)!;
    const totalBefore = cpuSeconds(process.pid)!;
    spinHere(1e8);
    const helpersAfter = helperCpuSeconds(process.pid)!;
    const totalAfter = cpuSeconds(process.pid)!;
    const mainThread = totalAfter - totalBefore - (helpersAfter - helpersBefore);
    expect(mainThread).toBeGreaterThanOrEqual(0.05);
    expect(helpersAfter - helpersBefore).toBeLessThan(mainThread);
  });

  test('a process that is not there reads as undefined', () => {
    expect(helperCpuSeconds(2 ** 22 + 12345)).toBeUndefined();
    expect(cpuSeconds(2 ** 22 + 12345)).toBeUndefined();
  });
});
