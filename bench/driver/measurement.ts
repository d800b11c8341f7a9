/**
 * What one run of one scenario against one server reports. Throughput and
 * latency come from the driver's clock; CPU and memory from the kernel's
 * view of the server process. `extra` holds what only some scenarios have
 * (a completion spread, memory per connection).
 */
import type { LoopResult } from './closed-loop.js';
import { percentile } from './stats.js';

export interface Measurement {
  readonly callsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Server CPU (user + system) per call over the measured phase, in µs. */
  readonly cpuUsPerCall: number | undefined;
  /** VmHWM of the server at the end of the run, in KiB. */
  readonly peakRssKb: number | undefined;
  readonly completed: number;
  readonly failed: number;
  readonly firstError: string | undefined;
  readonly extra: Readonly<Record<string, number | undefined>>;
}

export function measure(
  loop: LoopResult,
  cpu: { before: number | undefined; after: number | undefined },
  peakRssKb: number | undefined,
  extra: Record<string, number | undefined> = {},
): Measurement {
  const cpuUsPerCall =
    cpu.before === undefined || cpu.after === undefined || loop.completed === 0
      ? undefined
      : ((cpu.after - cpu.before) * 1e6) / loop.completed;
  return {
    callsPerSec: loop.elapsedMs > 0 ? (loop.completed * 1000) / loop.elapsedMs : 0,
    p50Ms: percentile(loop.latenciesMs, 50),
    p99Ms: percentile(loop.latenciesMs, 99),
    cpuUsPerCall,
    peakRssKb,
    completed: loop.completed,
    failed: loop.failed,
    firstError: loop.firstError,
    extra,
  };
}
