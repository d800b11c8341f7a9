/**
 * Modern against legacy in one process (issue 9): the same echo tools/call,
 * once with the 2026-07-28 `_meta` envelope on every request (after a
 * server/discover probe) and once on an initialized legacy connection, with
 * the bench server's configuration. Rounds alternate eras, so a busy machine
 * slows both alike; the table has the median of the rounds.
 *
 *   npm run build && node dist/bench/micro/eras.js [--calls N] [--rounds N] [--mode stdio|core|post|json] [--era legacy|modern]
 *
 * - `stdio` (default): serveStdio on in-memory streams; request lines are
 *   encoded before timing, written 16 at a time (the C=16 scenario's
 *   bursts), replies counted by newline, never parsed. Everything the server
 *   does per call but the syscalls.
 * - `core`: server.connect fed the decoded objects, replies not encoded: the
 *   pipeline without the wire.
 * - `post`: Streamable HTTP's server side without node:http: modern is
 *   what ModernExchanges.serve does per POST (a minted connection id, the
 *   envelope read as classify-era reads it, serveOne, its end once
 *   answered), legacy is a session's one long-lived `http` connection fed
 *   the decoded objects. What a modern POST's connection of its own costs.
 * - `json`: no server: JSON.parse of the request line and JSON.stringify of
 *   the reply object, each era's exact bytes. The share of the gap that is
 *   message size.
 *
 * CPU is process.cpuUsage (user+system) per call; KB is what V8's sampling
 * heap profiler saw allocated per call, garbage included.
 */
import { Subject } from 'rxjs';
import type { McpServer } from '../../lib/index.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { isEnvelopeError, readEnvelope } from '../../streams/modern/envelope.js';
import { mintConnId } from '../../transports/conn-id.js';
import { createBenchServer } from '../servers/bench-server.js';
import { allocatedBytes } from './allocated-bytes.js';
import { countedStdio } from './counted-stdio.js';
import { withModernMeta } from '../driver/modern-meta.js';
import { ECHO_ARGS } from '../driver/tool-call.js';
import { option } from './option.js';

type Era = 'legacy' | 'modern';
type Mode = 'stdio' | 'core' | 'post' | 'json';

const CALLS = Number(option('--calls', '20000'));
const ROUNDS = Number(option('--rounds', '7'));
const MODE = option('--mode', 'stdio') as Mode;
/** One era only, its passes and nothing else: for a profile of that era (`node --cpu-prof dist/bench/micro/eras.js --era modern`). */
const ONLY = option('--era', '') as Era | '';
const BURST = 16;

function buildServer(): McpServer {
  return createBenchServer({ maxInFlight: 1024 });
}

function request(era: Era, id: number, method: string, params: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: era === 'modern' ? withModernMeta(params) : params };
}

const echo = (era: Era, id: number) => request(era, id, 'tools/call', { name: 'echo', arguments: ECHO_ARGS });

/** The messages a connection opens with before its calls. */
function opening(era: Era): Record<string, unknown>[] {
  if (era === 'modern') return [request('modern', 1_000_000_000, 'server/discover', {})];
  return [
    { jsonrpc: '2.0', id: 1_000_000_000, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rxmcp-bench-driver', version: '1.0.0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
}

/**
 * A connection that takes a burst of BURST calls (ids 0 to BURST-1, the
 * same bytes or objects every time: each burst is answered before the next)
 * and resolves when all their replies are out.
 */
interface Target {
  burst(): Promise<void>;
}

function stdioTarget(era: Era): { target: Target; ready: Promise<void> } {
  const burstLines = Buffer.from(Array.from({ length: BURST }, (_, id) => `${JSON.stringify(echo(era, id))}\n`).join(''));
  const { input, seen, until } = countedStdio(buildServer());
  const open = opening(era);
  const ready = (async () => {
    for (const message of open) input.write(`${JSON.stringify(message)}\n`);
    await until(1);
  })();
  return {
    ready,
    target: {
      burst() {
        const done = until(seen() + BURST);
        input.write(burstLines);
        return done;
      },
    },
  };
}

/** A POST's peer, as peerOf gives it. */
const PEER = 'addr:127.0.0.1';

/**
 * One serveOne per message, as ModernExchanges.serve calls it: its reply
 * ends the connection (at once when it came before serveOne returned, the
 * synchronous echo's case).
 */
function postTarget(): { target: Target; ready: Promise<void> } {
  const messages = Array.from({ length: BURST }, (_, id) => JSON.parse(JSON.stringify(echo('modern', id))) as { id: number; params: Record<string, unknown> });
  const server = buildServer();
  let seen = 0;
  let wake: () => void = () => {};
  let want = 0;
  const post = (message: (typeof messages)[number]): void => {
    const read = readEnvelope(message.id, message.params);
    if (isEnvelopeError(read)) throw new Error('the bench request has a bad envelope');
    let answered = false;
    let end: (() => void) | undefined;
    const deliver = (out: OutboundMessage): void => {
      if ('method' in out || answered) return;
      answered = true;
      end?.();
      seen += 1;
      if (seen >= want) wake();
    };
    const finish = server.serveOne(mintConnId('mcp-modern'), message, { transport: 'http', peer: PEER }, deliver, { params: message.params, envelope: read });
    if (answered) finish();
    else end = finish;
  };
  return {
    ready: Promise.resolve(),
    target: {
      burst() {
        const done = new Promise<void>((resolve) => {
          want = seen + BURST;
          wake = resolve;
        });
        for (const message of messages) post(message);
        if (seen >= want) wake();
        return done;
      },
    },
  };
}

function coreTarget(era: Era): { target: Target; ready: Promise<void> } {
  if (MODE === 'post' && era === 'modern') return postTarget();
  const messages = Array.from({ length: BURST }, (_, id) => JSON.parse(JSON.stringify(echo(era, id))) as unknown);
  const inbound = new Subject<unknown>();
  let seen = 0;
  let want = 0;
  let wake: () => void = () => {};
  buildServer()
    .connect('bench', inbound, MODE === 'post' ? { transport: 'http', peer: PEER } : { transport: 'stdio' })
    .subscribe(() => {
      seen += 1;
      if (seen >= want) wake();
    });
  const until = (count: number) =>
    new Promise<void>((resolve) => {
      want = count;
      wake = resolve;
      if (seen >= want) resolve();
    });
  const ready = (async () => {
    const done = until(1);
    for (const message of opening(era)) inbound.next(message);
    await done;
  })();
  return {
    ready,
    target: {
      burst() {
        const done = until(seen + BURST);
        for (const message of messages) inbound.next(message);
        return done;
      },
    },
  };
}

async function drive(target: Target, calls: number): Promise<void> {
  for (let done = 0; done < calls; done += BURST) await target.burst();
}

/** A fresh connection, warmed up; then `rounds` timed passes, CPU µs per call each, and one allocation pass. */
async function serverRuns(era: Era, rounds: number, withAllocation: boolean): Promise<{ cpuUs: number[]; kb: number }> {
  const { target, ready } = (MODE === 'stdio' ? stdioTarget : coreTarget)(era);
  await ready;
  const pass = () => drive(target, CALLS);
  // Warm-up: at least 30 000 calls, so the JIT has settled before anything is counted.
  for (let warm = 0; warm < Math.max(1, Math.ceil(30_000 / CALLS)); warm++) await pass();
  const cpuUs: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const cpu0 = process.cpuUsage();
    await pass();
    const cpu = process.cpuUsage(cpu0);
    cpuUs.push((cpu.user + cpu.system) / CALLS);
  }
  const bytes = withAllocation ? await allocatedBytes(pass) : 0;
  return { cpuUs, kb: bytes / CALLS / 1024 };
}

/** The bytes each era exchanges for one echo: the request line and the reply the server writes. */
function jsonPair(era: Era): { line: string; reply: unknown } {
  const result: Record<string, unknown> = { content: [{ type: 'text', text: ECHO_ARGS.text }] };
  const reply =
    era === 'modern'
      ? { jsonrpc: '2.0', id: 12345, result: { resultType: 'complete', ...result, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'rxmcp-bench', version: '0.1.0' } } } }
      : { jsonrpc: '2.0', id: 12345, result };
  return { line: JSON.stringify(echo(era, 12345)), reply };
}

async function jsonRound(era: Era): Promise<{ cpuUs: number; kb: number; parseUs: number; stringifyUs: number }> {
  const { line, reply } = jsonPair(era);
  let sink = 0;
  const parse = () => {
    for (let i = 0; i < CALLS; i++) sink += (JSON.parse(line) as { id: number }).id;
  };
  const stringify = () => {
    for (let i = 0; i < CALLS; i++) sink += JSON.stringify(reply).length;
  };
  parse();
  stringify();
  const t0 = process.cpuUsage();
  parse();
  const t1 = process.cpuUsage();
  stringify();
  const t2 = process.cpuUsage();
  const us = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user + b.system - a.user - a.system) / CALLS;
  const bytes = await allocatedBytes(async () => {
    parse();
    stringify();
  });
  if (sink === -1) console.log(sink);
  return { cpuUs: us(t0, t2), kb: bytes / CALLS / 1024, parseUs: us(t0, t1), stringifyUs: us(t1, t2) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const results: Record<Era, { cpuUs: number[]; kb: number[]; parseUs: number[]; stringifyUs: number[] }> = {
  legacy: { cpuUs: [], kb: [], parseUs: [], stringifyUs: [] },
  modern: { cpuUs: [], kb: [], parseUs: [], stringifyUs: [] },
};
if (ONLY !== '') {
  if (MODE === 'json') {
    for (let round = 0; round < ROUNDS; round++) await jsonRound(ONLY);
  } else {
    await serverRuns(ONLY, ROUNDS, false);
  }
  process.exit(0);
}
if (MODE === 'json') {
  for (let round = 0; round < ROUNDS; round++) {
    for (const era of ['legacy', 'modern'] as const) {
      const r = await jsonRound(era);
      results[era].cpuUs.push(r.cpuUs);
      results[era].kb.push(r.kb);
      results[era].parseUs.push(r.parseUs);
      results[era].stringifyUs.push(r.stringifyUs);
    }
  }
} else {
  // A fresh connection per era and round, eras in turn; the allocation passes after all timing (the profiler slows what it watches).
  for (let round = 0; round < ROUNDS; round++) {
    for (const era of ['legacy', 'modern'] as const) {
      results[era].cpuUs.push(...(await serverRuns(era, 1, false)).cpuUs);
    }
  }
  for (const era of ['legacy', 'modern'] as const) results[era].kb.push((await serverRuns(era, 0, true)).kb);
}

console.log(`mode ${MODE}, ${CALLS} calls a round, median of ${ROUNDS} rounds${MODE === 'json' ? '' : `, bursts of ${BURST}`}\n`);
const extra = MODE === 'json' ? ' parse µs | stringify µs |' : '';
console.log(`| era | CPU µs/call | KB allocated/call |${extra}\n| --- | ---: | ---: |${MODE === 'json' ? ' ---: | ---: |' : ''}`);
for (const era of ['legacy', 'modern'] as const) {
  const r = results[era];
  const more = MODE === 'json' ? ` ${median(r.parseUs).toFixed(3)} | ${median(r.stringifyUs).toFixed(3)} |` : '';
  console.log(`| ${era} | ${median(r.cpuUs).toFixed(2)} | ${median(r.kb).toFixed(2)} |${more}`);
}
const ratio = median(results.modern.cpuUs) / median(results.legacy.cpuUs);
console.log(`\nmodern / legacy CPU per call: ${ratio.toFixed(2)}x`);
if (MODE === 'json') {
  const { line: legacyLine } = jsonPair('legacy');
  const { line: modernLine } = jsonPair('modern');
  console.log(`request bytes: legacy ${legacyLine.length}, modern ${modernLine.length}; reply bytes: legacy ${JSON.stringify(jsonPair('legacy').reply).length}, modern ${JSON.stringify(jsonPair('modern').reply).length}`);
}
process.exit(0);
