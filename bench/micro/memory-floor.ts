/**
 * Where a stdio echo server's resident memory comes from, layer by layer
 * (issue 22's peak RSS goal): a Node process that loads only what the layer
 * names, then the three bench servers after their first answer. Each
 * process is started on its own, left 300 ms to settle, and read from
 * /proc/<pid>/status (VmRSS) with no GC forced; the table has the median of
 * the rounds and each layer's difference from the one above it.
 *
 *   npm run build && node dist/bench/micro/memory-floor.js [--rounds N] [--no-load]
 *
 * The layers are cumulative: rxjs; then ajv with the formats and one
 * JSON Schema compiled, and a pino logger (the other libraries a stdio
 * server loads); then rxmcp's two entry points a stdio server imports. The servers' rows are what
 * `npm run bench` starts, idle after `initialize`. A server's peak under
 * load adds what V8's heap grows to as it runs, which no idle process
 * shows: the second table is the peak (VmHWM) under the stdio echo at 16
 * outstanding (20,000 calls after 2,000, the bench's stdio-echo-c16) of the
 * limit server, of the same with rxmcp's dependencies loaded and nothing of
 * rxmcp (servers/dependency-floor.ts), of rxmcp and of SDK v1.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { rssKb } from '../driver/proc-stats.js';
import { runEcho } from '../driver/scenarios/echo.js';
import { firstAnswer } from '../driver/scenarios/stdio-start.js';
import { startServer } from '../driver/server-process.js';
import { median } from '../driver/stats.js';
import { target, type Target } from '../driver/targets.js';
import { option } from './option.js';

const dist = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const rounds = Number(option('--rounds', '3'));

/** What a layer's process runs: an ES module body (its imports resolve from the package's folder), or a bench server, once it has answered. */
type Layer = { readonly name: string; readonly code: string } | { readonly name: string; readonly server: Target };

const DEPENDENCIES = `await import(${JSON.stringify(join(dist, 'bench/servers/dependencies.js'))});`;

const LAYERS: readonly Layer[] = [
  { name: 'node, nothing loaded', code: '' },
  { name: '+ rxjs', code: `await import('rxjs');` },
  { name: '+ ajv (one schema compiled), pino', code: DEPENDENCIES },
  // By the package's names, as a user's server imports them (the bundle); the eval runs inside the package's folder.
  { name: '+ rxmcp and rxmcp/transports', code: `${DEPENDENCIES}\n  await import('rxmcp');\n  await import('rxmcp/transports');` },
  { name: 'limit server (plain Node), initialized', server: target('limit', 'stdio') },
  { name: 'rxmcp echo server, initialized', server: target('rxmcp', 'stdio') },
  { name: 'SDK v1 echo server, initialized', server: target('sdk', 'stdio') },
];

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The layer's process, ready: the module body has run, or the server has answered. Ended by `stop`. */
async function started(layer: Layer): Promise<{ pid: number; stop(): Promise<void> }> {
  if ('server' in layer) {
    const server = await startServer(layer.server.command);
    await firstAnswer(layer.server, server).catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    return server;
  }
  const child = spawn(process.execPath, ['--input-type=module', '-e', `${layer.code}\nprocess.stdout.write('ready\\n');\nsetInterval(() => {}, 1000);`], {
    cwd: dist,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`${layer.name}: exited with ${code} before it was ready`)));
  });
  return { pid: child.pid!, stop: async () => void child.kill() };
}

/** Starts the layer's process, waits until it is ready and has settled, reads its RSS in KiB, and ends it. */
async function residentKb(layer: Layer): Promise<number> {
  const running = await started(layer);
  try {
    await settle(300);
    const kb = rssKb(running.pid);
    if (kb === undefined) throw new Error(`${layer.name}: no /proc reading (Linux only)`);
    return kb;
  } finally {
    await running.stop();
  }
}

const rows: { name: string; mb: number }[] = [];
for (const layer of LAYERS) {
  const readings: number[] = [];
  for (let round = 0; round < rounds; round++) readings.push(await residentKb(layer));
  rows.push({ name: layer.name, mb: median(readings)! / 1024 });
}

console.log(`| process (median of ${rounds}) | RSS MB | over the row above |`);
console.log('| --- | ---: | ---: |');
rows.forEach((row, i) => {
  const cumulative = i > 0 && i < 4;
  console.log(`| ${row.name} | ${row.mb.toFixed(1)} | ${cumulative ? `+${(row.mb - rows[i - 1]!.mb).toFixed(1)}` : ''} |`);
});

if (!process.argv.includes('--no-load')) {
  const floorServer: Target = {
    kind: 'limit',
    wire: 'stdio',
    mcp: false,
    command: { argv: ['node', join(dist, 'bench/servers/dependency-floor.js'), '--transport', 'stdio'], wire: 'stdio' },
  };
  const loaded: readonly { name: string; target: Target }[] = [
    { name: 'limit server (plain Node)', target: target('limit', 'stdio') },
    { name: 'limit server with rxjs, ajv (one schema compiled) and pino loaded', target: floorServer },
    { name: 'rxmcp echo server', target: target('rxmcp', 'stdio') },
    { name: 'SDK v1 echo server', target: target('sdk', 'stdio') },
  ];
  console.log('');
  console.log(`| under the stdio echo at 16 outstanding (median of ${rounds}) | peak RSS MB |`);
  console.log('| --- | ---: |');
  for (const { name, target: server } of loaded) {
    const peaks: (number | undefined)[] = [];
    for (let round = 0; round < rounds; round++) {
      peaks.push((await runEcho(server, { concurrency: 16, calls: 20_000, warmup: 2_000, maxMs: 15_000 })).peakRssKb);
    }
    console.log(`| ${name} | ${(median(peaks)! / 1024).toFixed(1)} |`);
  }
}
