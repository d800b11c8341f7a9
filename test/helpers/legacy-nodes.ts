/**
 * Starts the nodes of a legacy-era test deployment (legacy-node.mjs, on
 * built code) as child processes sharing one Redis, waits (bounded) for each
 * to serve, and stops them by PID. `npm run build` first (npm test does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./legacy-node.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/cluster/redis/index.js', import.meta.url));
const READY_TIMEOUT_MS = 15_000;

export interface LegacyNode {
  readonly nodeId: string;
  readonly url: string;
  readonly pid: number;
  readonly stderr: () => string;
  /** SIGKILL (no goodbye: its liveness record stays until it lapses) and wait for the exit. */
  kill(): Promise<void>;
  readonly alive: boolean;
}

function startNode(redisUrl: string, serverId: string, nodeId: string): Promise<LegacyNode> {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);
  const child: ChildProcess = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, REDIS_URL: redisUrl, SERVER_ID: serverId, NODE_ID: nodeId, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${nodeId} not ready within ${READY_TIMEOUT_MS} ms: ${stderr}`));
    }, READY_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`node ${nodeId} exited (${code}) before it was ready: ${stderr}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      clearTimeout(timer);
      const ready = JSON.parse(line) as { url: string; nodeId: string };
      resolve({
        nodeId: ready.nodeId,
        url: ready.url,
        pid: child.pid!,
        stderr: () => stderr,
        get alive() {
          return child.exitCode === null && child.signalCode === null;
        },
        async kill() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
          await exited;
        },
      });
    });
  });
}

export async function startLegacyNodes(redisUrl: string, serverId: string, nodeIds: readonly string[]): Promise<LegacyNode[]> {
  const started = await Promise.allSettled(nodeIds.map((id) => startNode(redisUrl, serverId, id)));
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(nodes.map((node) => node.kill()));
    throw (failed as PromiseRejectedResult).reason;
  }
  return nodes;
}
