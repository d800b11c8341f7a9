/**
 * The child processes of the cluster example's one command (main.ts): a
 * `redis-server` in the foreground on a free loopback port with no
 * persistence, and node processes that print `READY <url>`. Each is stopped
 * by its own PID (SIGTERM, then SIGKILL after a grace period).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Child {
  readonly pid: number;
  readonly process: ChildProcess;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it exited. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

const START_TIMEOUT_MS = 15_000;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function wrap(child: ChildProcess, cleanup: () => void = () => {}): Child {
  if (child.pid === undefined) throw new Error('spawn failed');
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(cleanup);
  return {
    pid: child.pid,
    process: child,
    async stop(graceMs = 3000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(killer);
      }
      await exited;
    },
  };
}

/** Resolves with the first stdout match of `pattern` (its group 1), or rejects when the child exits or times out first. */
export function awaitLine(child: ChildProcess, pattern: RegExp, what: string, stderrTail: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => finish(new Error(`${what}: nothing within ${START_TIMEOUT_MS} ms; stderr: ${stderrTail()}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match?.[1] !== undefined) finish(undefined, match[1]);
    };
    const onExit = (code: number | null) => finish(new Error(`${what} exited (${String(code)}) before it was ready; stderr: ${stderrTail()}`));
    const finish = (err: Error | undefined, value?: string) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      if (err !== undefined) reject(err);
      else resolve(value!);
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

function tailOf(child: ChildProcess): () => string {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-2000);
  });
  return () => tail;
}

/** redis-server on a free loopback port; `url` once it accepts connections. */
export async function startRedisServer(): Promise<Child & { url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-cluster-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const failed = new Promise<never>((_, reject) => child.once('error', (err) => reject(new Error(`redis-server: ${err.message} (install it: apt-get install redis-server)`))));
  const tail = tailOf(child);
  await Promise.race([awaitLine(child, /(Ready to accept connections)/, 'redis-server', tail), failed]);
  child.stdout!.resume();
  return { ...wrap(child, () => rmSync(dir, { recursive: true, force: true })), url: `redis://127.0.0.1:${port}` };
}

/** One cluster node (the built node.js) printing READY; `url` is its /mcp URL. */
export async function startNode(script: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<Child & { url: string }> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const tail = tailOf(child);
  const url = await awaitLine(child, /^READY (\S+)$/m, `node ${args.join(' ')}`, tail);
  child.stdout!.resume();
  return { ...wrap(child), url };
}
