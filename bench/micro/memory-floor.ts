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
import { median } from '../driver/stats.js';
import { target, type Target } from '../driver/targets.js';
import { option } from './option.js';

const dist = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
const rounds = Number(option('--rounds', '3'));

/** What a layer's process runs: an ES module body (its imports resolve from the package's folder), or a server to initialize. */
type Layer = { readonly name: string; readonly code: string } | { readonly name: string; readonly server: string };

const LIBRARIES = `
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const { default: addFormats } = await import('ajv-formats');
  // As the library's bundle runs it: the meta-schema check is generated at build time, not compiled here.
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false }));
  globalThis.keep = [ajv.compile({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })];
  const { pino } = await import('pino');
  globalThis.keep.push(pino({ level: 'info' }, process.stderr));`;

const LAYERS: readonly Layer[] = [
  { name: 'node, nothing loaded', code: '' },
  { name: '+ rxjs', code: `await import('rxjs');` },
  { name: '+ ajv (one schema compiled), pino', code: `await import('rxjs');${LIBRARIES}` },
  // By the package's names, as a user's server imports them (the bundle); the eval runs inside the package's folder.
  { name: "+ rxmcp and rxmcp/transports", code: `await import('rxjs');${LIBRARIES}\n  await import('rxmcp');\n  await import('rxmcp/transports');` },
  { name: 'limit server (plain Node), initialized', server: 'limit' },
  { name: 'rxmcp echo server, initialized', server: 'rxmcp' },
  { name: 'SDK v1 echo server, initialized', server: 'sdk-reference' },
];

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'memory-floor', version: '1' } },
})}\n`;

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the layer's process, waits until it is ready and has settled, reads its RSS in KiB, and ends it. */
async function residentKb(layer: Layer): Promise<number> {
  const child =
    'code' in layer
      ? spawn(process.execPath, ['--input-type=module', '-e', `${layer.code}\nprocess.stdout.write('ready\\n');\nsetInterval(() => {}, 1000);`], {
          cwd: dist,
          stdio: ['ignore', 'pipe', 'inherit'],
        })
      : spawn(process.execPath, [join(dist, 'bench/servers', `${layer.server}.js`), '--transport', 'stdio'], { cwd: dist, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`${layer.name}: exited with ${code} before it was ready`)));
    });
    if ('server' in layer) child.stdin!.write(INITIALIZE);
    await ready;
    await settle(300);
    const kb = rssKb(child.pid!);
    if (kb === undefined) throw new Error(`${layer.name}: no /proc reading (Linux only)`);
    return kb;
  } finally {
    child.kill();
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
