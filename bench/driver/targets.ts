/**
 * Which server a run measures and how it is started: the SDK v1 reference
 * (legacy era), the SDK v2 reference (`sdk2`, modern era), rxmcp, rxmcp with
 * JWT bearer authentication (`rxmcp-auth`: the same script with `--auth`),
 * rxmcp on the legacy counterpart of a modern wire (`rxmcp-legacy`: a
 * modern scenario's baseline, same script, initialize and a session), the
 * same legacy baseline sent and answered a modern exchange's bytes
 * (`rxmcp-legacy-sized`, the control that tells what the modern path costs
 * from what the modern messages' size costs), or the limit server, on one
 * wire. The scripts are the compiled siblings under
 * dist/bench/servers/ (benchmarks run from dist).
 */
import { fileURLToPath } from 'node:url';
import type { ServerCommand } from './server-process.js';

export type ServerKind = 'sdk' | 'sdk2' | 'rxmcp' | 'rxmcp-auth' | 'rxmcp-legacy' | 'rxmcp-legacy-sized' | 'limit';
/**
 * `http-modern`: Streamable HTTP with 2026-07-28 requests (stateless: no
 * initialize, no session); `stdio-modern`: one stdio connection whose
 * requests are 2026-07-28 ones (a server/discover probe, no initialize);
 * `stdio-sized`: a legacy stdio connection whose requests are a modern
 * one's bytes with the claim key misspelt by one letter (the control of
 * `rxmcp-legacy-sized`).
 */
export type Wire = 'stdio' | 'stdio-modern' | 'stdio-sized' | 'http' | 'http-modern' | 'ws';

/** The legacy wire a modern one is measured against, and the transport each runs on. */
const LEGACY_OF: Partial<Record<Wire, Wire>> = { 'http-modern': 'http', 'stdio-modern': 'stdio' };
/** The legacy wire carrying a modern one's message sizes. */
const SIZED_OF: Partial<Record<Wire, Wire>> = { 'stdio-modern': 'stdio-sized' };
const TRANSPORT_OF: Record<Wire, 'stdio' | 'http' | 'ws'> = {
  stdio: 'stdio',
  'stdio-modern': 'stdio',
  'stdio-sized': 'stdio',
  http: 'http',
  'http-modern': 'http',
  ws: 'ws',
};

export interface Target {
  readonly kind: ServerKind;
  readonly wire: Wire;
  readonly command: ServerCommand;
  /** False for the limit server: no initialize, no session. */
  readonly mcp: boolean;
}

const SCRIPTS: Record<ServerKind, string> = {
  sdk: 'sdk-reference.js',
  sdk2: 'sdk2-reference.js',
  rxmcp: 'rxmcp.js',
  'rxmcp-auth': 'rxmcp.js',
  'rxmcp-legacy': 'rxmcp.js',
  'rxmcp-legacy-sized': 'rxmcp.js',
  limit: 'limit.js',
};

/** Arguments a kind always runs with. */
const KIND_ARGS: Partial<Record<ServerKind, readonly string[]>> = { 'rxmcp-auth': ['--auth'], 'rxmcp-legacy-sized': ['--modern-sized-echo'] };

export const SERVER_LABELS: Record<ServerKind, string> = {
  sdk: 'SDK 1.32.2',
  sdk2: 'SDK v2 2.4.0',
  rxmcp: 'rxmcp',
  'rxmcp-auth': 'rxmcp + JWT bearer auth',
  'rxmcp-legacy': 'rxmcp, legacy era (same transport)',
  'rxmcp-legacy-sized': 'rxmcp, legacy era, modern-sized messages',
  limit: 'limit (plain Node)',
};

export function serverScript(kind: ServerKind): string {
  return fileURLToPath(new URL(`../servers/${SCRIPTS[kind]}`, import.meta.url));
}

export function target(kind: ServerKind, scenarioWire: Wire, extraArgs: readonly string[] = []): Target {
  const wire =
    kind === 'rxmcp-legacy' ? (LEGACY_OF[scenarioWire] ?? scenarioWire) : kind === 'rxmcp-legacy-sized' ? (SIZED_OF[scenarioWire] ?? scenarioWire) : scenarioWire;
  const transport = TRANSPORT_OF[wire];
  return {
    kind,
    wire,
    mcp: kind !== 'limit',
    command: { argv: ['node', serverScript(kind), '--transport', transport, ...(KIND_ARGS[kind] ?? []), ...extraArgs], wire: transport === 'stdio' ? 'stdio' : 'network' },
  };
}
