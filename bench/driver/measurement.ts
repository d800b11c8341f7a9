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
  /** The part of cpuUsPerCall spent off the main thread (V8's compiler and GC helpers), in µs. */
  readonly helperCpuUsPerCall: number | undefined;
  /** VmHWM of the server at the end of the run, in KiB. */
  readonly peakRssKb: number | undefined;
  readonly completed: number;
  readonly failed: number;
  readonly firstError: string | undefined;
  readonly extra: Readonly<Record<string, number | undefined>>;
}

/** Seconds read before and after the measured phase; either may be missing. */
export interface CpuReadings {
  readonly before: number | undefined;
  readonly after: number | undefined;
}

function usPerCall(cpu: CpuReadings | undefined, calls: number): number | undefined {
  return cpu?.before === undefined || cpu.after === undefined || calls === 0 ? undefined : ((cpu.after - cpu.before) * 1e6) / calls;
}

export function measure(
  loop: LoopResult,
  cpu: CpuReadings,
  peakRssKb: number | undefined,
  extra: Record<string, number | undefined> = {},
  helperCpu?: CpuReadings,
): Measurement {
  return {
    callsPerSec: loop.elapsedMs > 0 ? (loop.completed * 1000) / loop.elapsedMs : 0,
    p50Ms: percentile(loop.latenciesMs, 50),
    p99Ms: percentile(loop.latenciesMs, 99),
    cpuUsPerCall: usPerCall(cpu, loop.completed),
    helperCpuUsPerCall: usPerCall(helperCpu, loop.completed),
    peakRssKb,
    completed: loop.completed,
    failed: loop.failed,
    firstError: loop.firstError,
    extra,
  };
}
