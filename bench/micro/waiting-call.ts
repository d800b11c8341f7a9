/**
 * What one waiting call costs the heap: 1000 outstanding `sleep` calls (the
 * bench server's tool, `timer(ms).pipe(map(...))`) on one in-memory stdio
 * connection, as in the stdio-sleep-1000 scenario. A call that waits 50 ms
 * outlives scavenges, so what it holds is copied and then promoted: the
 * GC's share of that scenario follows these bytes.
 *
 *   npm run build && node dist/bench/micro/waiting-call.js [--top N]
 *
 * - retained: a heap snapshot with the calls waiting, minus one after they
 *   answered, counting only object kinds that grew by at least one per two
 *   calls (the per-call objects; the table lists the largest);
 * - allocated: what V8's sampling heap profiler saw allocated per call over
 *   a whole burst, garbage included (line splitting, parsing, encoding too).
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { createBenchServer } from '../servers/bench-server.js';
import { allocatedBytes } from './allocated-bytes.js';
import { countedStdio } from './counted-stdio.js';

const CALLS = 1000;
const argv = process.argv.slice(2);
const TOP = Number(argv[argv.indexOf('--top') + 1] ?? 15) || 15;

function connection(): { burst(ms: number): Promise<void> } {
  const server = createBenchServer({ maxInFlight: CALLS });
  const { input, seen, until } = countedStdio(server);
  const initialize = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rxmcp-bench-driver', version: '1.0.0' } };
  input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: initialize })}\n`);
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const ready = until(1);
  const line = (id: number, ms: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'sleep', arguments: { ms } } })}\n`;
  return {
    async burst(ms) {
      await ready;
      const done = until(seen() + CALLS);
      input.write(Array.from({ length: CALLS }, (_, id) => line(id, ms)).join(''));
      return done;
    },
  };
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/**
 * Count and bytes per `type:name` in a heap snapshot, kept only for kinds
 * with at least CALLS/2 objects or named in `keep`: the map is on the heap
 * the next snapshot reads, and one small array per kind would be counted.
 */
function kinds(keep?: ReadonlyMap<string, unknown>): Map<string, [number, number]> {
  const file = join(tmpdir(), `waiting-call-${process.pid}.heapsnapshot`);
  writeHeapSnapshot(file);
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  rmSync(file);
  const fields = snap.snapshot.meta.node_fields;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const out = new Map<string, [number, number]>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const key = `${snap.snapshot.meta.node_types[0][snap.nodes[i + type]!]}:${snap.strings[snap.nodes[i + name]!]!.slice(0, 50)}`;
    const entry = out.get(key) ?? [0, 0];
    entry[0] += 1;
    entry[1] += snap.nodes[i + size]!;
    out.set(key, entry);
  }
  for (const [key, [count]] of out) if (count < CALLS / 2 && keep?.has(key) !== true) out.delete(key);
  return out;
}

const ticks = (n: number) => Array.from({ length: n }).reduce<Promise<void>>((p) => p.then(() => new Promise((r) => setImmediate(r))), Promise.resolve());

const conn = connection();
for (let i = 0; i < 5; i += 1) await conn.burst(1);
// The first snapshot of a process leaves structures of its own behind (thousands of arrays): taken once, unread.
kinds();

const answered = conn.burst(2000);
await ticks(20);
const during = kinds();
await answered;
const after = kinds(during);
const rows: Array<[string, number, number]> = [];
for (const [key, [count, bytes]] of during) {
  const [countAfter, bytesAfter] = after.get(key) ?? [0, 0];
  if (count - countAfter >= CALLS / 2) rows.push([key, (count - countAfter) / CALLS, (bytes - bytesAfter) / CALLS]);
}
rows.sort((a, b) => b[2] - a[2]);
const retained = rows.reduce((sum, row) => sum + row[2], 0);
const objects = rows.reduce((sum, row) => sum + row[1], 0);

const allocated: number[] = [];
for (let i = 0; i < 3; i += 1) allocated.push((await allocatedBytes(() => conn.burst(20))) / CALLS);

console.log(`retained per waiting call: ${retained.toFixed(0)} bytes in ${objects.toFixed(0)} objects`);
console.log(`allocated per call (3 bursts): ${allocated.map((b) => b.toFixed(0)).join(' ')} bytes`);
console.log('\n| objects/call | bytes/call | kind |\n| ---: | ---: | --- |');
for (const [key, count, bytes] of rows.slice(0, TOP)) console.log(`| ${count.toFixed(1)} | ${bytes.toFixed(0)} | ${key} |`);
process.exit(0);
