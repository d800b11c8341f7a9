/**
 * `npm run bench:cluster`: the cluster benchmark (not a test). Two tables:
 *
 * 1. Scale-out: the modern-era (2026-07-28) HTTP echo with 16 calls
 *    outstanding, on one process alone (in-memory stores, no Redis, direct),
 *    on 1, 2 and 3 nodes of a Redis deployment with the driver spreading the
 *    calls itself, and through the example's round-robin proxy with 1, 2
 *    and 3 nodes. calls/s, latency, and CPU per
 *    call: all nodes summed, the proxy, redis-server, and this driver.
 * 2. The Redis paths, each beside its in-memory twin, one call outstanding
 *    (what one call pays) and 8 (what it costs under load): an approval
 *    round trip (ask + approved retry: the ledger's admit and take), a call
 *    with the cluster permits on (acquire + release), a bus publish
 *    (`server.resourceUpdated` on a call).
 *
 * Everything runs on this machine (`--quick`: fewer calls): the driver, the
 * proxy, the nodes and Redis share its cores, which is what table 1 is about.
 * The report (markdown) goes to stdout and bench/results/cluster-latest.md;
 * progress to stderr. Every process started is stopped by PID.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startNode, startRedisServer, type Child } from '../examples/cluster/processes.js';
import { measurePhase, type Phase, type Pids } from './cluster/measure.js';
import { approvalRoundTrip, echo, touch } from './cluster/modern-call.js';

const NODE = fileURLToPath(new URL('./servers/cluster-node.js', import.meta.url));
const PROXY = fileURLToPath(new URL('../examples/cluster/proxy.js', import.meta.url));
const RESULTS = fileURLToPath(new URL('../../bench/results/', import.meta.url));
const quick = process.argv.includes('--quick');
// --smoke: a handful of calls, to check the plumbing; its numbers mean nothing.
const smoke = process.argv.includes('--smoke');
// --calls N: a longer scale-out run (each node of N must warm its own JIT, so short runs overstate per-call CPU with more nodes).
const callsFlag = process.argv.indexOf('--calls');
const CALLS = callsFlag > 0 ? Number(process.argv[callsFlag + 1]) : undefined;
if (CALLS !== undefined && !(Number.isSafeInteger(CALLS) && CALLS > 0)) throw new Error('--calls takes a positive integer');
const LOAD = CALLS !== undefined
  ? { calls: CALLS, warmup: Math.ceil(CALLS / 4) }
  : smoke ? { calls: 40, warmup: 10 } : quick ? { calls: 2_000, warmup: 400 } : { calls: 8_000, warmup: 1_500 };
const PATH_LOAD_C1 = smoke ? { calls: 10, warmup: 5 } : quick ? { calls: 400, warmup: 100 } : { calls: 1_500, warmup: 300 };
const MAX_MS = 120_000;
const env = { ...process.env, NODE_ENV: 'production', RXMCP_LOG_LEVEL: 'silent' };

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

interface Setup {
  /** Where the driver sends its calls, in turn: the proxy, or every node (the driver spreading them itself). */
  readonly urls: readonly URL[];
  readonly pids: Pids;
  stop(): Promise<void>;
}

/** N nodes (0 Redis: one process alone) and, with `proxy`, the proxy in front. */
async function startSetup(redis: (Child & { url: string }) | undefined, nodes: number, options: { proxy: boolean; permits?: number }): Promise<Setup> {
  const started: Child[] = [];
  try {
    const serverId = `bench-${randomBytes(3).toString('hex')}`;
    const nodeUrls: string[] = [];
    for (let i = 0; i < nodes; i++) {
      const args = redis === undefined ? [] : ['--redis', redis.url, '--server-id', serverId, '--node-id', `n${i}`];
      if (options.permits !== undefined) args.push('--permits', String(options.permits));
      const node = await startNode(NODE, args, env);
      started.push(node);
      nodeUrls.push(node.url);
    }
    const nodePids = started.map((child) => child.pid);
    let urls = nodeUrls.map((nodeUrl) => new URL(nodeUrl));
    let proxyPid: number | undefined;
    if (options.proxy) {
      const proxy = await startNode(PROXY, ['--port', '0', ...nodeUrls], env);
      started.push(proxy);
      proxyPid = proxy.pid;
      urls = [new URL('/mcp', proxy.url)];
    }
    return {
      urls,
      pids: { nodes: nodePids, ...(proxyPid === undefined ? {} : { proxy: proxyPid }), ...(redis === undefined ? {} : { redis: redis.pid }) },
      stop: async () => {
        for (const child of started.reverse()) await child.stop(2_000);
      },
    };
  } catch (err) {
    for (const child of started.reverse()) await child.stop(2_000);
    throw err;
  }
}

async function run(label: string, setup: Setup, step: (agent: Agent, url: URL) => Promise<void>, concurrency: number, load: { calls: number; warmup: number }): Promise<Phase> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  try {
    log(`  ${label}, C=${concurrency} ...`);
    let next = 0;
    const target = (): URL => setup.urls[next++ % setup.urls.length]!;
    return await measurePhase(setup.pids, () => step(agent, target()), { concurrency, ...load, maxMs: MAX_MS });
  } finally {
    agent.destroy();
  }
}

const num = (value: number | undefined, digits = 0) => (value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits));

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const scale: Array<[string, Phase]> = [];
  const paths: Array<[string, number, Phase, Phase]> = [];
  try {
    log('scale-out: modern echo, C=16');
    const shapes: Array<[string, boolean, number, boolean]> = [
      ['one process, in-memory (no Redis), direct', false, 1, false],
      ['1 node on Redis, direct', true, 1, false],
      // The driver spreading calls over the nodes itself: scale-out without the proxy's own CPU on the same cores.
      ['2 nodes on Redis, driver round-robin (no proxy)', true, 2, false],
      ['3 nodes on Redis, driver round-robin (no proxy)', true, 3, false],
      ['proxy + 1 node on Redis', true, 1, true],
      ['proxy + 2 nodes on Redis', true, 2, true],
      ['proxy + 3 nodes on Redis', true, 3, true],
    ];
    for (const [label, onRedis, nodes, proxy] of shapes) {
      const setup = await startSetup(onRedis ? redis : undefined, nodes, { proxy });
      try {
        scale.push([label, await run(label, setup, echo, 16, LOAD)]);
      } finally {
        await setup.stop();
      }
    }
    log('Redis paths beside their in-memory twins');
    const twins: Array<[string, (agent: Agent, url: URL) => Promise<void>, { permits?: number }]> = [
      ['approval round trip (ask + approved retry; ledger admit + take)', approvalRoundTrip, {}],
      ['echo with cluster permits (acquire + release)', echo, { permits: 1024 }],
      ['bus publish (resourceUpdated on a call)', touch, {}],
    ];
    for (const [label, step, extra] of twins) {
      // 8, not 16: a call waiting on Redis holds its node slot meanwhile, and one peer's share of a node is maxInFlightPerPeer
      // (default floor(32 / 3) = 10): at 16 outstanding from the bench's one address the node itself answers server_busy.
      for (const concurrency of [1, 8]) {
        const load = concurrency === 1 ? PATH_LOAD_C1 : LOAD;
        // The permits' twin is the same Redis node without them: only the acquire + release differ.
        const memory = await startSetup(extra.permits === undefined ? undefined : redis, 1, { proxy: false });
        let base: Phase;
        try {
          base = await run(`${label}: ${extra.permits === undefined ? 'in-memory' : 'Redis node, permits off'}`, memory, step, concurrency, load);
        } finally {
          await memory.stop();
        }
        const shared = await startSetup(redis, 1, { proxy: false, ...extra });
        try {
          paths.push([label, concurrency, base, await run(`${label}: Redis`, shared, step, concurrency, load)]);
        } finally {
          await shared.stop();
        }
      }
    }
  } finally {
    await redis.stop();
  }
  const report = render(scale, paths);
  process.stdout.write(report);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(`${RESULTS}cluster-latest.md`, report);
}

function render(scale: Array<[string, Phase]>, paths: Array<[string, number, Phase, Phase]>): string {
  const lines = [
    `# Cluster bench, ${new Date().toISOString()}`,
    '',
    `Machine: ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; driver, proxy, nodes and redis-server all on it.${smoke ? ' (--smoke: plumbing only, not a measurement)' : quick ? ' (--quick)' : ''}`,
    '',
    '## Modern HTTP echo, 16 outstanding',
    '',
    '| setup | calls/s | p50 ms | p99 ms | nodes CPU µs/call (sum) | proxy µs/call | redis µs/call | driver µs/call | failed |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...scale.map(([label, p]) => `| ${label} | ${num(p.callsPerSec)} | ${num(p.p50Ms, 2)} | ${num(p.p99Ms, 2)} | ${num(p.nodeUs)} | ${num(p.proxyUs)} | ${num(p.redisUs)} | ${num(p.driverUs)} | ${p.failed} |`),
    '',
    '## Redis paths beside their in-memory twins (one node, direct; a step of the approval is two requests)',
    '',
    '| path | C | twin steps/s | Redis steps/s | twin p50 ms | Redis p50 ms | twin node µs/step | Redis node µs/step | Δ node µs | redis-server µs/step | failed (twin/Redis) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...paths.map(([label, c, base, shared]) => {
      const delta = base.nodeUs === undefined || shared.nodeUs === undefined ? undefined : shared.nodeUs - base.nodeUs;
      return `| ${label} | ${c} | ${num(base.callsPerSec)} | ${num(shared.callsPerSec)} | ${num(base.p50Ms, 3)} | ${num(shared.p50Ms, 3)} | ${num(base.nodeUs)} | ${num(shared.nodeUs)} | ${num(delta)} | ${num(shared.redisUs)} | ${base.failed}/${shared.failed} |`;
    }),
    '',
    ...[...scale.map(([, p]) => p), ...paths.flatMap(([, , a, b]) => [a, b])]
      .filter((p) => p.firstError !== undefined)
      .map((p) => `First error seen: ${p.firstError}`),
    '',
  ];
  return lines.join('\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:cluster failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
