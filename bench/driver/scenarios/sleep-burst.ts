/**
 * A thousand outstanding `sleep 50` calls on one stdio connection, all sent
 * at once: a server that runs them concurrently finishes the last one about
 * 50 ms after it was sent. Reported `spreadMs` is the time from the last
 * call's start to the last completion (target: within 1.3 x 50 ms), and
 * the latency of each call (p50, p99) is the measurement's own.
 */
import { measureLoad } from '../load.js';
import type { Measurement } from '../measurement.js';
import { openClient } from '../open-client.js';
import type { Target } from '../targets.js';
import { callTool } from '../tool-call.js';
import { withServer } from './with-server.js';

export interface SleepBurstOptions {
  readonly outstanding: number;
  readonly sleepMs: number;
  /** Unmeasured calls first, in bursts of `outstanding` (default two bursts); 0: a fresh server, JIT and first collections included. */
  readonly warmupCalls?: number;
}

export function runSleepBurst(target: Target, options: SleepBurstOptions): Promise<Measurement> {
  return withServer(target, async (server) => {
    const client = await openClient(target, server);
    const measurement = await measureLoad(server.pid, () => callTool(client, 'sleep', { ms: options.sleepMs }), {
      concurrency: options.outstanding,
      calls: options.outstanding,
      // Warm with the same burst (twice, unless told), so what is measured is the server's steady state, not its JIT.
      warmup: options.warmupCalls ?? options.outstanding * 2,
      warmupConcurrency: options.outstanding,
      extra: (loop) => {
        const spreadMs = loop.lastEndMs - loop.lastStartMs;
        return { spreadMs, spreadX: spreadMs / options.sleepMs };
      },
    });
    await client.close();
    return measurement;
  });
}
