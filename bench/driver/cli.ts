/**
 * The driver on its own: one closed-loop run against one server, printed as
 * JSON (a Measurement). Either it spawns the server command after `--`, or
 * it targets a running server's `--url` (http or ws; pass `--pid` for CPU
 * and RSS).
 *
 *   node dist/bench/driver/cli.js --wire stdio|stdio-modern|stdio-sized|http|http-modern|ws [--concurrency 16] [--calls 20000]
 *        [--warmup 1000] [--max-ms 15000] [--tool echo|sleep] [--sleep-ms 50] [--no-mcp]
 *        (--url URL [--pid PID] | -- <server argv...>)
 *
 * e.g. `... --wire stdio --concurrency 16 -- node dist/bench/servers/rxmcp.js --transport stdio`
 */
import { keepAliveAgent } from './http-client.js';
import { measureLoad } from './load.js';
import { openClient, type Endpoint, type Reachable } from './open-client.js';
import { startServer, type RunningServer } from './server-process.js';
import type { Wire } from './targets.js';
import { callTool, ECHO_ARGS } from './tool-call.js';

function option(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}

function count(argv: readonly string[], name: string, fallback: number): number {
  const raw = option(argv, name);
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer`);
  return value;
}

const dashes = process.argv.indexOf('--');
const argv = dashes === -1 ? process.argv.slice(2) : process.argv.slice(2, dashes);
const serverArgv = dashes === -1 ? [] : process.argv.slice(dashes + 1);
const wire = (option(argv, '--wire') ?? 'stdio') as Wire;
if (!['stdio', 'stdio-modern', 'stdio-sized', 'http', 'http-modern', 'ws'].includes(wire)) throw new Error('--wire must be stdio, stdio-modern, stdio-sized, http, http-modern or ws');
const url = option(argv, '--url');
if ((url === undefined) === (serverArgv.length === 0)) throw new Error('give either --url or a server command after --');
const endpoint: Endpoint = { wire, mcp: !argv.includes('--no-mcp') };
const concurrency = Math.max(1, count(argv, '--concurrency', 16));
const tool = option(argv, '--tool') ?? 'echo';
const args = tool === 'sleep' ? { ms: count(argv, '--sleep-ms', 50) } : ECHO_ARGS;

let server: RunningServer | undefined;
let reachable: Reachable = { url };
let pid = url === undefined ? undefined : count(argv, '--pid', 0) || undefined;
if (url === undefined) {
  server = await startServer({ argv: serverArgv, wire: wire === 'stdio' || wire === 'stdio-modern' || wire === 'stdio-sized' ? 'stdio' : 'network' });
  reachable = server;
  pid = server.pid;
}
const agent = keepAliveAgent(concurrency);
try {
  const client = await openClient(endpoint, reachable, agent);
  const measurement = await measureLoad(pid, () => callTool(client, tool, args), {
    concurrency,
    calls: count(argv, '--calls', 20_000),
    warmup: count(argv, '--warmup', 1_000),
    maxMs: count(argv, '--max-ms', 15_000),
  });
  await client.close();
  process.stdout.write(`${JSON.stringify(measurement, null, 2)}\n`);
} finally {
  agent.destroy();
  await server?.stop();
}
