/**
 * Issue 8, finding 2: the heap a hostile client can make the server RETAIN
 * stays under a stated ceiling on each of the four paths, each driven to its
 * bound over a real transport on 127.0.0.1. Each path runs the BUILT server
 * (dist/; `npm test` builds first) in its own child process with
 * `--expose-gc --max-old-space-size=512`, which measures `heapUsed` after
 * gc() before and after (fixtures/retained-memory.mjs).
 *
 * Before the bounds, the same drives retained about 86 MiB (capabilities),
 * 97 MiB (parked calls), 18.5 MiB (subscriptions) and 25 MiB of deleted
 * sessions' events: every ceiling below failed by a wide margin.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const MiB = 1024 * 1024;
const FIXTURE = fileURLToPath(new URL('./fixtures/retained-memory.mjs', import.meta.url));

/** The ceilings, in bytes of heap still held after gc() (also in docs/options.md, Registry options). */
const CEILINGS = {
  /** 48 initializes with 128 KiB of `{},` each, table capped at 32: the projection is a few objects per entry. */
  capabilities: 8 * MiB,
  /** 256 parked calls at just under maxParkedCallBytes (64 KiB by estimate), 32 oversized ones denied. */
  parked: 24 * MiB,
  /** 256 subscriptions of 8,000-character URIs on one session, 16 of 1 MiB refused. */
  subscriptions: 8 * MiB,
  /** 24 sessions with a 1 MiB reply each, all deleted: nothing of them stays. */
  eventStoreChurn: 4 * MiB,
  /** Then 12 live sessions against a store capped at 8 MiB. */
  eventStoreAtBound: 16 * MiB,
} as const;

interface PathReport {
  readonly path: string;
  readonly retainedBytes: number;
  readonly facts: Record<string, any>;
}

function runPath(path: string): Promise<PathReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=512', FIXTURE, path], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)));
    const killer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('exit', (code, signal) => {
      clearTimeout(killer);
      const line = stdout.trim().split('\n').at(-1) ?? '';
      if (code !== 0) {
        reject(new Error(`${path}: child exited ${String(code ?? signal)}; stderr: ${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(line) as PathReport);
      } catch {
        reject(new Error(`${path}: no report line; stdout: ${stdout.slice(-500)} stderr: ${stderr}`));
      }
    });
  });
}

const retained = (bytes: number) => `heap retained: ${(bytes / MiB).toFixed(1)} MiB`;

describe('the heap the server retains stays under its ceiling', () => {
  test('capabilities: 48 large initialize POSTs over Streamable HTTP', { timeout: 45_000 }, async () => {
    const report = await runPath('capabilities');
    expect(report.retainedBytes, retained(report.retainedBytes)).toBeLessThan(CEILINGS.capabilities);
    expect(report.facts).toEqual({ capabilityEntries: 32, sessions: 48 });
  });

  test('parked approvals: delete_note calls over 8 WebSocket connections', { timeout: 45_000 }, async () => {
    const report = await runPath('parked');
    expect(report.retainedBytes, retained(report.retainedBytes)).toBeLessThan(CEILINGS.parked);
    expect(report.facts).toEqual({ parked: 256, bigDenied: 32 });
  });

  test('subscriptions: one Streamable HTTP session subscribing to its bounds', { timeout: 45_000 }, async () => {
    const report = await runPath('subscriptions');
    expect(report.retainedBytes, retained(report.retainedBytes)).toBeLessThan(CEILINGS.subscriptions);
    expect(report.facts).toEqual({ tooLong: 16, tooMany: 10, other: 0, resourceSubscriptions: 256 });
  });

  test('event store: session churn with a 1 MiB SSE reply each, then the store at its bound', { timeout: 45_000 }, async () => {
    const report = await runPath('event-store');
    expect(report.facts.churned).toEqual({ events: 0, bytes: 0, sessions: 0 });
    expect(report.facts.churnRetainedBytes, retained(report.facts.churnRetainedBytes)).toBeLessThan(CEILINGS.eventStoreChurn);
    expect(report.facts.atBound.sessions).toBe(12);
    expect(report.facts.atBound.bytes).toBeLessThanOrEqual(8 * MiB);
    expect(report.retainedBytes, retained(report.retainedBytes)).toBeLessThan(CEILINGS.eventStoreAtBound);
  });
});
