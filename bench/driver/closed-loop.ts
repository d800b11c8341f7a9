/**
 * The load shape: `concurrency` calls outstanding at all times until
 * `calls` have completed (or `maxMs` has passed, so a slow server cannot
 * stretch the whole bench). Each worker starts its next call the moment its
 * last one answers. Latency is per call, send to reply, in ms.
 */
import { performance } from 'node:perf_hooks';

export interface LoopResult {
  readonly completed: number;
  readonly failed: number;
  readonly elapsedMs: number;
  readonly latenciesMs: number[];
  /** When the last call was sent and when the last reply came, ms since the loop began. */
  readonly lastStartMs: number;
  readonly lastEndMs: number;
  readonly firstError: string | undefined;
}

export interface LoopOptions {
  readonly concurrency: number;
  readonly calls: number;
  readonly maxMs?: number;
}

/** `call` resolves on a good answer and throws on anything else (an error answer, a lost connection). */
export async function closedLoop(call: () => Promise<void>, options: LoopOptions): Promise<LoopResult> {
  const began = performance.now();
  const deadline = began + (options.maxMs ?? Number.POSITIVE_INFINITY);
  const latenciesMs: number[] = [];
  let started = 0;
  let failed = 0;
  let lastStart = began;
  let lastEnd = began;
  let firstError: string | undefined;

  const worker = async () => {
    while (started < options.calls && performance.now() < deadline) {
      started += 1;
      const sent = performance.now();
      lastStart = sent;
      let ok = true;
      try {
        await call();
      } catch (error) {
        ok = false;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
      const answered = performance.now();
      lastEnd = answered;
      if (ok) latenciesMs.push(answered - sent);
      else failed += 1;
    }
  };

  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  return {
    completed: latenciesMs.length,
    failed,
    elapsedMs: performance.now() - began,
    latenciesMs,
    lastStartMs: lastStart - began,
    lastEndMs: lastEnd - began,
    firstError,
  };
}
