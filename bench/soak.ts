/**
 * The soak (not a test, not part of `npm run bench`): a long run of mixed
 * requests against the bench server, printing the server's RSS every
 * `--every` requests, to show it stays flat. Two phases, each on its own
 * freshly spawned server:
 *
 * - stdio: one connection, `--stdio N` requests (default 1,000,000), 16
 *   outstanding;
 * - Streamable HTTP with session churn: `--http N` requests (default
 *   200,000) over 8 clients, each running session after session: initialize,
 *   notifications/initialized, 17 mixed requests, DELETE (20 requests a
 *   session, every reply on an SSE stream, so the event store churns too).
 *
 * The mix (MIX below) has successes and every kind of refusal: echo, ping,
 * tools/list, resources/list, a zero-ms sleep, an unknown tool, arguments
 * that fail the schema, an unknown method, a subscribe to a URI nobody
 * serves. A phase is "flat" when its last RSS reading is within
 * max(10 %, 16 MiB) of the reading after its first quarter (warm-up: JIT,
 * pools, heap growth); the script exits 1 when a phase is not.
 *
 *   npm run soak                                     # build, then both phases (several minutes)
 *   node dist/bench/soak.js --stdio 200000 --http 40000 --every 10000
 */
import { performance } from 'node:perf_hooks';
import { HttpClient, keepAliveAgent } from './driver/http-client.js';
import { initialize } from './driver/handshake.js';
import { rssKb } from './driver/proc-stats.js';
import type { JsonRpcReply, RpcClient } from './driver/rpc-client.js';
import { startServer, type RunningServer } from './driver/server-process.js';
import { StdioClient } from './driver/stdio-client.js';
import { target } from './driver/targets.js';
import { withServer } from './driver/scenarios/with-server.js';

type Step = (client: RpcClient) => Promise<JsonRpcReply>;

const MIX: readonly Step[] = [
  (c) => c.request('tools/call', { name: 'echo', arguments: { text: 'soak' } }),
  (c) => c.request('ping'),
  (c) => c.request('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(512) } }),
  (c) => c.request('tools/list'),
  (c) => c.request('tools/call', { name: 'sleep', arguments: { ms: 0 } }),
  (c) => c.request('tools/call', { name: 'no_such_tool', arguments: {} }),
  (c) => c.request('tools/call', { name: 'echo', arguments: { text: 42 } }),
  (c) => c.request('resources/list'),
  (c) => c.request('no/such/method'),
  (c) => c.request('resources/subscribe', { uri: 'soak://nothing' }),
];

interface Phase {
  readonly name: string;
  readonly requests: number;
  readonly every: number;
}

/** Counts requests as they complete and reads the server's RSS each time the count crosses a multiple of `every`. */
class RssSeries {
  private done = 0;
  readonly readings: { requests: number; rssMb: number }[] = [];
  private readonly began = performance.now();

  constructor(
    private readonly phase: Phase,
    private readonly pid: number,
  ) {}

  get completed(): number {
    return this.done;
  }

  count(n = 1): void {
    const before = Math.floor(this.done / this.phase.every);
    this.done += n;
    if (Math.floor(this.done / this.phase.every) > before) this.read();
  }

  private read(): void {
    const rssMb = (rssKb(this.pid) ?? 0) / 1024;
    this.readings.push({ requests: this.done, rssMb });
    const seconds = (performance.now() - this.began) / 1000;
    process.stdout.write(
      `${this.phase.name}\t${String(this.done).padStart(9)} requests\tRSS ${rssMb.toFixed(1).padStart(7)} MB\t${(this.done / seconds).toFixed(0)} req/s\n`,
    );
  }

  /** Whether the last reading is within max(10 %, 16 MiB) of the one after the first quarter. */
  verdict(): { flat: boolean; line: string } {
    const settled = this.readings.find((r) => r.requests >= this.phase.requests / 4) ?? this.readings[0];
    const last = this.readings.at(-1);
    if (settled === undefined || last === undefined) return { flat: false, line: `${this.phase.name}: no readings` };
    const allowance = Math.max(settled.rssMb * 0.1, 16);
    const growth = last.rssMb - settled.rssMb;
    const flat = growth <= allowance;
    const line = `${this.phase.name}: RSS ${settled.rssMb.toFixed(1)} MB at ${settled.requests} -> ${last.rssMb.toFixed(1)} MB at ${last.requests} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB, allowed +${allowance.toFixed(1)}): ${flat ? 'flat' : 'GROWING'}`;
    return { flat, line };
  }
}

async function step(client: RpcClient, at: number, failures: { count: number; first?: string }): Promise<void> {
  try {
    const reply = await MIX[at % MIX.length]!(client);
    if (reply.result === undefined && reply.error === undefined) throw new Error('a reply with neither result nor error');
  } catch (error) {
    failures.count += 1;
    failures.first ??= error instanceof Error ? error.message : String(error);
  }
}

async function stdioPhase(phase: Phase): Promise<RssSeries> {
  return withServer(target('rxmcp', 'stdio'), async (server: RunningServer) => {
    const client = new StdioClient(server.child.stdin, server.child.stdout);
    await initialize(client);
    const series = new RssSeries(phase, server.pid);
    const failures = { count: 0 } as { count: number; first?: string };
    let started = 0;
    const worker = async () => {
      while (started < phase.requests) {
        const at = started++;
        await step(client, at, failures);
        series.count();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    await client.close();
    if (failures.count > 0) process.stdout.write(`${phase.name}: ${failures.count} failed, first: ${failures.first}\n`);
    return series;
  });
}

const CALLS_PER_SESSION = 17;

async function httpPhase(phase: Phase): Promise<RssSeries> {
  const server = await startServer(target('rxmcp', 'http').command);
  const agent = keepAliveAgent(8);
  try {
    const series = new RssSeries(phase, server.pid);
    const failures = { count: 0 } as { count: number; first?: string };
    let started = 0;
    const worker = async () => {
      while (started < phase.requests) {
        const client = new HttpClient(server.url!, agent);
        started += CALLS_PER_SESSION + 3;
        try {
          await initialize(client); // initialize + notifications/initialized
          series.count(2);
          for (let i = 0; i < CALLS_PER_SESSION; i += 1) {
            await step(client, i, failures);
            series.count();
          }
        } catch (error) {
          failures.count += 1;
          failures.first ??= error instanceof Error ? error.message : String(error);
        } finally {
          await client.deleteSession().catch((error: unknown) => {
            failures.count += 1;
            failures.first ??= error instanceof Error ? error.message : String(error);
          });
          series.count();
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    if (failures.count > 0) process.stdout.write(`${phase.name}: ${failures.count} failed, first: ${failures.first}\n`);
    return series;
  } finally {
    agent.destroy();
    await server.stop();
  }
}

function count(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  const value = at === -1 ? fallback : Number(argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer`);
  return value;
}

const argv = process.argv.slice(2);
const every = Math.max(1, count(argv, '--every', 50_000));
const verdicts: { flat: boolean; line: string }[] = [];
const stdioRequests = count(argv, '--stdio', 1_000_000);
if (stdioRequests > 0) verdicts.push((await stdioPhase({ name: 'stdio', requests: stdioRequests, every })).verdict());
const httpRequests = count(argv, '--http', 200_000);
if (httpRequests > 0) verdicts.push((await httpPhase({ name: 'http', requests: httpRequests, every })).verdict());
for (const verdict of verdicts) process.stdout.write(`${verdict.line}\n`);
process.exit(verdicts.every((v) => v.flat) ? 0 : 1);
