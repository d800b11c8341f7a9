/**
 * A helper process for the idle-WebSocket scenario: opens `count` sockets
 * to `url` (`parallel` handshakes at a time), initializes each, and then
 * holds them, idle, until its stdin ends. One process per few thousand
 * sockets keeps each under its file-descriptor limit and spreads the
 * client-side work.
 *
 *   node ws-idle-holder.js <url> <count> <parallel>
 *
 * Prints ONE stdout line: `HELD {"held":n,"ms":t,"latenciesMs":[...]}` once
 * all are open, or `FAILED <reason>`.
 */
import { performance } from 'node:perf_hooks';
import { initialize } from './handshake.js';
import { connectWs, type WsClient } from './ws-client.js';

const [url, countArg, parallelArg] = process.argv.slice(2);
const count = Number(countArg);
const parallel = Number(parallelArg ?? 64);
if (url === undefined || !Number.isSafeInteger(count) || count < 1) {
  process.stdout.write('FAILED usage: ws-idle-holder.js <url> <count> [parallel]\n');
  process.exit(2);
}

const held: WsClient[] = [];
const latenciesMs: number[] = [];
const began = performance.now();
let next = 0;

async function opener(): Promise<void> {
  while (next < count) {
    next += 1;
    const started = performance.now();
    const client = await connectWs(url as string);
    await initialize(client);
    latenciesMs.push(performance.now() - started);
    held.push(client);
  }
}

process.stdin.resume();
process.stdin.once('end', () => process.exit(0));
try {
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, opener));
  const ms = performance.now() - began;
  process.stdout.write(`HELD ${JSON.stringify({ held: held.length, ms, latenciesMs: latenciesMs.map((l) => Math.round(l * 100) / 100) })}\n`);
} catch (error) {
  process.stdout.write(`FAILED ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
