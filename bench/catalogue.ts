/**
 * Every scenario compare.ts knows: which servers it applies to, on which
 * wire, with what load in a full run and in a `--quick` one. The SDK has no
 * WebSocket server transport and the limit server speaks neither WebSocket
 * nor sessions, so those scenarios measure fewer servers. The modern-era
 * scenarios (`*-modern-*`) run the SDK v2 server, rxmcp, and rxmcp on the
 * legacy counterpart of the wire (`rxmcp-legacy`) in the same rounds, so
 * `modern / legacy` compares two runs made seconds apart.
 */
import type { Measurement } from './driver/measurement.js';
import { runEcho } from './driver/scenarios/echo.js';
import { runHttpSessions } from './driver/scenarios/http-sessions.js';
import { runSleepBurst } from './driver/scenarios/sleep-burst.js';
import { runStdioStart } from './driver/scenarios/stdio-start.js';
import { runWsIdle } from './driver/scenarios/ws-idle.js';
import type { ServerKind, Target, Wire } from './driver/targets.js';

export interface ExtraColumn {
  readonly key: string;
  readonly label: string;
  readonly digits: number;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly wire: Wire;
  readonly servers: readonly ServerKind[];
  /** Server arguments beyond `--transport`, per server. */
  readonly serverArgs?: Partial<Record<ServerKind, readonly string[]>>;
  readonly extraColumns?: readonly ExtraColumn[];
  run(target: Target, quick: boolean): Promise<Measurement>;
}

const ECHO_MAX_MS = 15_000;

interface EchoLoad {
  readonly calls: number;
  readonly warmup: number;
}

/**
 * The steady state of a fast server: at 100,000 calls a second a 20,000-call
 * run lasts a fifth of a second and about half its CPU per call is the JIT
 * and the first collections (measured on stdio, 2026-12-03: with 100,000
 * warm-up calls the same server costs half as much per call). Where a
 * scenario compares two paths of rxmcp to each other, that share would
 * weigh on the path with more code to compile; the SDK servers reach the
 * time cap first and are measured over what they completed.
 */
const STEADY: EchoLoad = { calls: 200_000, warmup: 30_000 };

/**
 * One call outstanding after the JIT has settled: the 5,000-call run after
 * 1,000 warm-up calls lasts under a second, and a fresh rxmcp server spends
 * about 75 us a call there against about 44 us after 10,000 calls (the limit
 * server 45 against 37; stdio, 2026-12-04), its first optimizing compilations
 * running in the measured window. An agent's server lives through many calls,
 * so both are reported.
 */
const LONE_STEADY: EchoLoad = { calls: 20_000, warmup: 10_000 };

function echoScenario(wire: Wire, concurrency: number, servers: readonly ServerKind[], variant?: { name: string; title: string; load?: EchoLoad }): Scenario {
  const full = variant?.load ?? (concurrency === 1 ? { calls: 5_000, warmup: 1_000 } : { calls: 20_000, warmup: 2_000 });
  const quick = concurrency === 1 ? { calls: 1_000, warmup: 200 } : { calls: 3_000, warmup: 500 };
  return {
    name: variant?.name ?? `${wire}-echo-c${concurrency}`,
    title: variant?.title ?? `echo over ${wire}, ${concurrency} outstanding`,
    wire,
    servers,
    run: (target, isQuick) => runEcho(target, { concurrency, ...(isQuick ? quick : full), maxMs: ECHO_MAX_MS }),
  };
}

/** A burst of 1000 outstanding `sleep 50` calls on stdio; `warmupCalls` as runSleepBurst takes it (undefined: two bursts). */
function sleepBurstScenario(
  name: string,
  title: string,
  warmupCalls: number | undefined,
  extraColumns: readonly ExtraColumn[] = [{ key: 'spreadMs', label: 'spread ms', digits: 1 }],
): Scenario {
  return {
    name,
    title,
    wire: 'stdio',
    servers: ['sdk', 'rxmcp', 'limit'],
    serverArgs: { rxmcp: ['--max-in-flight', '1000'] },
    extraColumns,
    run: (target) => runSleepBurst(target, { outstanding: 1000, sleepMs: 50, ...(warmupCalls === undefined ? {} : { warmupCalls }) }),
  };
}

export const SCENARIOS: readonly Scenario[] = [
  echoScenario('stdio', 1, ['sdk', 'rxmcp', 'limit']),
  echoScenario('stdio', 16, ['sdk', 'rxmcp', 'limit']),
  // The same after the JIT has settled: at 100,000 calls/s the 20,000-call run above lasts a fifth of a second,
  // most of it the first compilations, which weigh on whichever server runs more code (so both are reported).
  echoScenario('stdio', 16, ['sdk', 'rxmcp', 'limit'], {
    name: 'stdio-echo-c16-steady',
    load: STEADY,
    title: 'echo over stdio, 16 outstanding, 200,000 calls after 30,000 warm-up (the steady state; the SDK stops at the time cap)',
  }),
  echoScenario('stdio', 1, ['sdk', 'rxmcp', 'limit'], {
    name: 'stdio-echo-c1-steady',
    load: LONE_STEADY,
    title: 'echo over stdio, 1 outstanding, 20,000 calls after 10,000 warm-up (the steady state)',
  }),
  echoScenario('http', 1, ['sdk', 'rxmcp', 'limit']),
  echoScenario('http', 1, ['sdk', 'rxmcp', 'limit'], {
    name: 'http-echo-c1-steady',
    load: LONE_STEADY,
    title: 'echo over Streamable HTTP, 1 outstanding, 20,000 calls after 10,000 warm-up (the steady state)',
  }),
  echoScenario('http', 16, ['sdk', 'rxmcp', 'limit']),
  echoScenario('http', 16, ['rxmcp', 'rxmcp-auth'], {
    name: 'http-echo-auth-c16',
    title:
      'echo over Streamable HTTP, 16 outstanding, without and with JWT bearer authentication (RS256, JWKS served on 127.0.0.1 and cached): every request authenticated, its token verified once and then found in the cache of verified tokens',
  }),
  echoScenario('stdio-modern', 16, ['sdk2', 'rxmcp', 'rxmcp-legacy', 'rxmcp-legacy-sized'], {
    name: 'stdio-modern-echo-c16',
    load: STEADY,
    title:
      'echo over stdio with 2026-07-28 requests (a server/discover probe, the _meta envelope on every request, no initialize), 16 outstanding; rxmcp legacy = the same over an initialized stdio connection; modern-sized = that legacy connection sent and answered the same bytes as the modern one (the claim key misspelt by one letter, the result with resultType and serverInfo)',
  }),
  echoScenario('http-modern', 1, ['sdk2', 'rxmcp', 'rxmcp-legacy'], {
    name: 'http-modern-echo-c1',
    title: 'echo over Streamable HTTP with 2026-07-28 requests, 1 outstanding; rxmcp legacy = the same over a legacy session',
  }),
  echoScenario('http-modern', 16, ['sdk2', 'rxmcp', 'rxmcp-legacy'], {
    name: 'http-modern-echo-c16',
    title: 'echo over Streamable HTTP with 2026-07-28 requests (the _meta envelope and the standard headers on every POST, no initialize, no session), 16 outstanding; rxmcp legacy = the same over a legacy session',
  }),
  echoScenario('ws', 1, ['rxmcp']),
  echoScenario('ws', 16, ['rxmcp']),
  sleepBurstScenario('stdio-sleep-1000', '1000 outstanding `sleep 50` calls on one stdio connection (spread: last start to last completion)', undefined, [
    { key: 'spreadMs', label: 'spread ms', digits: 1 },
    { key: 'spreadX', label: 'spread / 50 ms', digits: 2 },
  ]),
  sleepBurstScenario(
    'stdio-sleep-1000-fresh',
    '1000 outstanding `sleep 50` calls on a fresh stdio server (no warm-up: its JIT and first collections in the burst); latency p50/p99 per call',
    0,
  ),
  sleepBurstScenario(
    'stdio-sleep-1000-warm',
    '1000 outstanding `sleep 50` calls on a stdio server after 20,000 warm-up sleep calls (bursts of 1000); latency p50/p99 per call',
    20_000,
  ),
  {
    name: 'stdio-start',
    title:
      'a stdio server started from nothing, 20 times, as an MCP host starts one: p50/p99 = spawn to its first answer (initialize; the limit server has no handshake and answers an echo), first call = the tools/call after it; CPU and RSS are the process\'s at its first answer (a call = a start)',
    wire: 'stdio',
    servers: ['sdk', 'rxmcp', 'limit'],
    extraColumns: [{ key: 'firstCallMs', label: 'first call ms', digits: 2 }],
    run: (target, quick) => runStdioStart(target, { starts: quick ? 5 : 20 }),
  },
  {
    name: 'http-sessions-200',
    title: '200 Streamable HTTP sessions initialized at once, then one echo call on each at once (CPU/call covers both phases)',
    wire: 'http',
    servers: ['sdk', 'rxmcp'],
    extraColumns: [
      { key: 'initWallMs', label: 'init all ms', digits: 0 },
      { key: 'initP99Ms', label: 'init p99 ms', digits: 1 },
    ],
    run: (target, quick) => runHttpSessions(target, { sessions: 200, warmup: quick ? 10 : 20 }),
  },
  {
    name: 'ws-idle-10k',
    title: '10,000 idle WebSocket connections (a call = connect + initialize; --quick: 2,000)',
    wire: 'ws',
    servers: ['rxmcp'],
    extraColumns: [
      { key: 'connections', label: 'connections', digits: 0 },
      { key: 'kbPerConnection', label: 'KB / connection', digits: 1 },
    ],
    run: (target, quick) => runWsIdle(target, { connections: quick ? 2_000 : 10_000, perHolder: 5_000, settleMs: 1_000 }),
  },
];
