/**
 * A stdio server started from nothing, as an MCP host starts one: the time
 * from spawning the process to its first answer (initialize for an MCP
 * server; the limit server, which has no handshake, answers an echo call),
 * then the first tools/call's own latency. `starts` processes, one after
 * the other; a "call" of the report is one start. CPU and RSS are the
 * process's at its first answer: everything it cost to load and be ready.
 */
import { measure, type Measurement } from '../measurement.js';
import { openClient } from '../open-client.js';
import { cpuSeconds, helperCpuSeconds, peakRssKb } from '../proc-stats.js';
import type { RpcClient } from '../rpc-client.js';
import { startServer, type RunningServer } from '../server-process.js';
import { median } from '../stats.js';
import type { Target } from '../targets.js';
import { callTool, ECHO_ARGS } from '../tool-call.js';

export interface StdioStartOptions {
  readonly starts: number;
}

interface OneStart {
  readonly readyMs: number;
  readonly firstCallMs: number;
  readonly cpuSeconds: number | undefined;
  readonly helperCpuSeconds: number | undefined;
  readonly peakRssKb: number | undefined;
}

/**
 * A client of a server just started, once the server has answered for the
 * first time: initialize for an MCP server; the limit server, which has no
 * handshake, answers an echo.
 */
export async function firstAnswer(target: Target, server: RunningServer): Promise<RpcClient> {
  const client = await openClient(target, server);
  if (!target.mcp) await callTool(client, 'echo', ECHO_ARGS);
  return client;
}

async function startOnce(target: Target): Promise<OneStart> {
  const begun = performance.now();
  const server = await startServer(target.command);
  try {
    const client = await firstAnswer(target, server);
    const ready = performance.now();
    const cpu = cpuSeconds(server.pid);
    const helpers = helperCpuSeconds(server.pid);
    const peak = peakRssKb(server.pid);
    await callTool(client, 'echo', ECHO_ARGS);
    const firstCallMs = performance.now() - ready;
    await client.close();
    return { readyMs: ready - begun, firstCallMs, cpuSeconds: cpu, helperCpuSeconds: helpers, peakRssKb: peak };
  } finally {
    await server.stop();
  }
}

export async function runStdioStart(target: Target, options: StdioStartOptions): Promise<Measurement> {
  const starts: OneStart[] = [];
  const begun = performance.now();
  for (let i = 0; i < options.starts; i++) starts.push(await startOnce(target));
  const elapsedMs = performance.now() - begun;
  const sum = (pick: (s: OneStart) => number | undefined): number | undefined =>
    starts.some((s) => pick(s) === undefined) ? undefined : starts.reduce((total, s) => total + pick(s)!, 0);
  const latenciesMs = starts.map((s) => s.readyMs);
  return measure(
    { completed: starts.length, failed: 0, elapsedMs, latenciesMs, lastStartMs: elapsedMs, lastEndMs: elapsedMs, firstError: undefined },
    { before: 0, after: sum((s) => s.cpuSeconds) },
    median(starts.map((s) => s.peakRssKb)),
    { firstCallMs: median(starts.map((s) => s.firstCallMs)) },
    { before: 0, after: sum((s) => s.helperCpuSeconds) },
  );
}
