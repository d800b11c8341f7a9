/**
 * `npm run cluster` (the built examples/cluster/main.js): one command starts
 * a redis-server, three nodes and the proxy, prints the URLs and every PID,
 * serves through the proxy, and on SIGTERM stops everything it started and
 * exits 0. Bounded; the command is killed by PID if it overstays.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { assertClusterBuilt } from '../helpers/cluster-harness.js';
import { closeClients, modernClient, whoami } from './clients.js';

const MAIN = fileURLToPath(new URL('../../dist/examples/cluster/main.js', import.meta.url));
const children: number[] = [];

afterAll(async () => {
  await closeClients();
  for (const pid of children) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone: what the test expects.
    }
  }
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('starts Redis, three nodes and the proxy; serves; SIGTERM stops all of them and exits 0', async () => {
  assertClusterBuilt();
  const { REDIS_URL: _ignored, ...env } = process.env;
  const child = spawn(process.execPath, [MAIN], { env: { ...env, PORT: '0', LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child.pid!);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let out = '';
  const ready = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no READY within 20 s: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /^READY (\S+)$/m.exec(out);
      if (match !== null) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited (${String(code)}) before READY: ${out}`)));
  });
  const pids = [...out.matchAll(/\(pid (\d+)\)/g)].map((match) => Number(match[1]));
  children.push(...pids);
  // Redis and three nodes.
  expect(pids).toHaveLength(4);
  expect(pids.every(alive)).toBe(true);

  const client = await modernClient(ready);
  const served = new Set<string>();
  for (let i = 0; i < 6; i++) served.add(await whoami(client));
  expect(served).toEqual(new Set(['node-a', 'node-b', 'node-c']));
  await closeClients();

  child.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 10_000))]);
  expect(code).toBe(0);
  expect(pids.filter(alive)).toEqual([]);
}, 40_000);
