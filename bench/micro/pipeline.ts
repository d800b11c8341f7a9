/**
 * The pipeline alone, in process (no transport, no JSON): CPU and bytes
 * allocated per tools/call for each kind of handler answer. The allocation
 * figure comes from V8's sampling heap profiler with collected objects
 * included, so it counts garbage too: it is what drives GC cost.
 *
 *   npm run build && node dist/bench/micro/pipeline.js [calls] [--noop-middleware]
 *
 * `--noop-middleware` puts one stage that passes every reply through in the
 * pipeline: the cost of having middleware at all (without it, the pipeline
 * must cost what it did before middleware existed).
 */
import { Subject, map, of, timer } from 'rxjs';
import { allocatedBytes } from './allocated-bytes.js';
import { allowAll, createServer, Registry, type Middleware } from '../../lib/index.js';

const HANDLERS: Record<string, () => unknown> = {
  sync: () => 'x',
  observable: () => of('x'),
  promise: async () => 'x',
  timer: () => timer(1).pipe(map(() => 'x')),
};

const NOOP: Middleware = () => () => (reply$) => reply$;
const args = process.argv.slice(2);
const middleware = args.includes('--noop-middleware') ? [NOOP] : [];

async function measure(kind: string, calls: number): Promise<{ cpuUs: number; kb: number }> {
  const registry = new Registry().registerTool({ name: 't', handler: HANDLERS[kind]! });
  const server = createServer({ registry, authorizer: allowAll(), maxInFlight: calls, maxInFlightPerConnection: calls, middleware });
  const inbound = new Subject<unknown>();
  let replies = 0;
  let done: () => void = () => {};
  server.connect('bench', inbound, { transport: 'memory' }).subscribe(() => {
    replies += 1;
    if (replies === calls) done();
  });
  const round = async () => {
    replies = 0;
    const finished = new Promise<void>((resolve) => (done = resolve));
    for (let id = 0; id < calls; id++) inbound.next({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {} } });
    await finished;
  };
  for (let i = 0; i < 8; i++) await round(); // warm the JIT
  const cpu0 = process.cpuUsage();
  await round();
  const cpu = process.cpuUsage(cpu0);
  const bytes = await allocatedBytes(round);
  return { cpuUs: (cpu.user + cpu.system) / calls, kb: bytes / calls / 1024 };
}

const calls = Number(args.find((arg) => !arg.startsWith('--')) ?? 5000);
console.log(middleware.length > 0 ? 'with one no-op middleware stage\n' : 'no middleware\n');
console.log(`| handler answers | CPU µs/call | KB allocated/call |\n| --- | ---: | ---: |`);
for (const kind of Object.keys(HANDLERS)) {
  const { cpuUs, kb } = await measure(kind, calls);
  console.log(`| ${kind} | ${cpuUs.toFixed(1)} | ${kb.toFixed(2)} |`);
}
