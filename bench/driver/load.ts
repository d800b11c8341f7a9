/**
 * One measured load phase on an open client: unmeasured warmup calls at the
 * same concurrency (so the JIT has settled), then the closed loop, with the
 * server's CPU (all of it, and the part on helper threads) read around the
 * measured phase only and its peak RSS read at
 * the end. Without a pid (a server someone else started) CPU and RSS are
 * n/a. A warmup failure fails the run: timing errors measures nothing.
 */
import { closedLoop, type LoopOptions, type LoopResult } from './closed-loop.js';
import { measure, type Measurement } from './measurement.js';
import { cpuSeconds, helperCpuSeconds, peakRssKb } from './proc-stats.js';

export interface LoadOptions extends LoopOptions {
  readonly warmup: number;
  /** Warmup concurrency; default the measured one. */
  readonly warmupConcurrency?: number;
  /** Warmup call; default the measured one. */
  readonly warmupCall?: () => Promise<void>;
  readonly extra?: (loop: LoopResult) => Record<string, number | undefined>;
}

export async function measureLoad(pid: number | undefined, call: () => Promise<void>, options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) {
    const warm = await closedLoop(options.warmupCall ?? call, {
      concurrency: options.warmupConcurrency ?? options.concurrency,
      calls: options.warmup,
      ...(options.maxMs === undefined ? {} : { maxMs: options.maxMs }),
    });
    if (warm.failed > 0) throw new Error(`warmup failed: ${warm.firstError ?? 'unknown'}`);
  }
  const before = pid === undefined ? undefined : cpuSeconds(pid);
  const helpersBefore = pid === undefined ? undefined : helperCpuSeconds(pid);
  const loop = await closedLoop(call, options);
  const after = pid === undefined ? undefined : cpuSeconds(pid);
  const helpersAfter = pid === undefined ? undefined : helperCpuSeconds(pid);
  const peak = pid === undefined ? undefined : peakRssKb(pid);
  return measure(loop, { before, after }, peak, options.extra?.(loop) ?? {}, { before: helpersBefore, after: helpersAfter });
}
