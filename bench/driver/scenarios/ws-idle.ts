/**
 * Idle WebSocket connections: `connections` sockets opened and initialized
 * by helper processes (a few thousand each), then held idle. Memory per
 * connection is the server's RSS after they are all open minus its RSS
 * before (one warm connection), divided by the count; calls/s is
 * connections opened per second, latency is per connect + initialize.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { closedLoop } from '../closed-loop.js';
import { measure, type Measurement } from '../measurement.js';
import { openClient } from '../open-client.js';
import { cpuSeconds, peakRssKb, rssKb } from '../proc-stats.js';
import type { Target } from '../targets.js';
import { callTool, ECHO_ARGS } from '../tool-call.js';
import { withServer } from './with-server.js';

export interface WsIdleOptions {
  readonly connections: number;
  readonly perHolder: number;
  readonly settleMs: number;
}

interface Held {
  readonly held: number;
  readonly ms: number;
  readonly latenciesMs: number[];
}

const HOLDER = fileURLToPath(new URL('../ws-idle-holder.js', import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startHolder(url: string, count: number): { held: Promise<Held>; release: () => Promise<void> } {
  const child = spawn(process.execPath, [HOLDER, url, String(count), '64'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const held = new Promise<Held>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const line = /^(HELD|FAILED) (.*)$/m.exec(seen);
      if (line === null) return;
      if (line[1] === 'HELD') resolve(JSON.parse(line[2] as string) as Held);
      else reject(new Error(`ws holder: ${line[2] ?? ''}`));
    });
    child.once('exit', (code) => reject(new Error(`ws holder exited (${String(code)}) before holding its sockets`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  held.catch(() => {});
  return {
    held,
    release: () => {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end();
      return exited;
    },
  };
}

export function runWsIdle(target: Target, options: WsIdleOptions): Promise<Measurement> {
  return withServer(target, async (server) => {
    const url = server.url;
    if (url === undefined) throw new Error('idle WebSocket needs a network server');
    const warm = await openClient(target, server);
    await closedLoop(() => callTool(warm, 'echo', ECHO_ARGS), { concurrency: 4, calls: 200 });
    await sleep(options.settleMs);
    const rssBefore = rssKb(server.pid);
    const cpuBefore = cpuSeconds(server.pid);

    const counts: number[] = [];
    for (let left = options.connections; left > 0; left -= options.perHolder) counts.push(Math.min(left, options.perHolder));
    const holders = counts.map((count) => startHolder(url, count));
    try {
      const began = performance.now();
      const results = await Promise.all(holders.map((h) => h.held));
      const elapsedMs = performance.now() - began;
      const cpuAfter = cpuSeconds(server.pid);
      await sleep(options.settleMs);
      const rssAfter = rssKb(server.pid);
      const peak = peakRssKb(server.pid);
      const latenciesMs = results.flatMap((r) => r.latenciesMs);
      const held = results.reduce((sum, r) => sum + r.held, 0);
      const kbPerConnection = rssBefore === undefined || rssAfter === undefined ? undefined : (rssAfter - rssBefore) / held;
      const loop = { completed: held, failed: options.connections - held, elapsedMs, latenciesMs, lastStartMs: 0, lastEndMs: elapsedMs, firstError: undefined };
      return measure(loop, { before: cpuBefore, after: cpuAfter }, peak, { kbPerConnection, connections: held });
    } finally {
      await Promise.all(holders.map((h) => h.release()));
      await warm.close();
    }
  });
}
