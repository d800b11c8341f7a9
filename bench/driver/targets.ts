/**
 * Which server a run measures and how it is started: the SDK reference,
 * rxmcp, rxmcp with JWT bearer authentication (`rxmcp-auth`: the same
 * script with `--auth`), or the limit server, on one wire. The scripts are
 * the compiled siblings under dist/bench/servers/ (benchmarks run from dist).
 */
import { fileURLToPath } from 'node:url';
import type { ServerCommand } from './server-process.js';

export type ServerKind = 'sdk' | 'rxmcp' | 'rxmcp-auth' | 'limit';
/** `http-modern`: Streamable HTTP with 2026-07-28 requests (stateless: no initialize, no session). */
export type Wire = 'stdio' | 'http' | 'http-modern' | 'ws';

export interface Target {
  readonly kind: ServerKind;
  readonly wire: Wire;
  readonly command: ServerCommand;
  /** False for the limit server: no initialize, no session. */
  readonly mcp: boolean;
}

const SCRIPTS: Record<ServerKind, string> = {
  sdk: 'sdk-reference.js',
  rxmcp: 'rxmcp.js',
  'rxmcp-auth': 'rxmcp.js',
  limit: 'limit.js',
};

/** Arguments a kind always runs with. */
const KIND_ARGS: Partial<Record<ServerKind, readonly string[]>> = { 'rxmcp-auth': ['--auth'] };

export const SERVER_LABELS: Record<ServerKind, string> = {
  sdk: 'SDK 1.32.2',
  rxmcp: 'rxmcp',
  'rxmcp-auth': 'rxmcp + JWT bearer auth',
  limit: 'limit (plain Node)',
};

export function serverScript(kind: ServerKind): string {
  return fileURLToPath(new URL(`../servers/${SCRIPTS[kind]}`, import.meta.url));
}

export function target(kind: ServerKind, wire: Wire, extraArgs: readonly string[] = []): Target {
  return {
    kind,
    wire,
    mcp: kind !== 'limit',
    command: { argv: ['node', serverScript(kind), '--transport', wire === 'http-modern' ? 'http' : wire, ...(KIND_ARGS[kind] ?? []), ...extraArgs], wire: wire === 'stdio' ? 'stdio' : 'network' },
  };
}
