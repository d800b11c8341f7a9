/**
 * The BUILT demo as a child process for the interop tests (`npm test` builds
 * first; run `npm run build` before running one file alone). One network
 * demo per test: delete_note's approval deletes a note, so tests must not
 * share a server. Every child started here is killed by `stopDemos`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const DEMO_MAIN = fileURLToPath(new URL('../../dist/examples/demo/main.js', import.meta.url));

export function assertDemoBuilt(): void {
  if (!existsSync(DEMO_MAIN)) throw new Error(`${DEMO_MAIN} is missing: run \`npm run build\` first (npm test does)`);
}

export interface DemoUrls {
  readonly mcp: string;
  readonly sse: string;
  readonly ws: string;
}

const started: ChildProcess[] = [];

/** Starts the network demo on 127.0.0.1 port 0 and resolves with the URLs its banner prints. */
export function serveDemo(): Promise<DemoUrls> {
  const child = spawn(process.execPath, [DEMO_MAIN, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`demo exited early (${code}): ${stderr}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const mcp = /Streamable HTTP\s+(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
      const sse = /Legacy HTTP\+SSE\s+(\S+)/.exec(stderr)?.[1];
      const ws = /WebSocket\s+(\S+)/.exec(stderr)?.[1];
      if (mcp && sse && ws) resolve({ mcp, sse, ws });
    });
  });
}

/** Kills the demos this module started (by their own handles). */
export function stopDemos(): void {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
