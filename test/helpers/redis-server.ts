/**
 * A real Redis for tests: `redis-server` (Debian's package; `.ci/run`
 * installs it) started by the test itself on a free loopback port, in the
 * foreground, with no persistence, and stopped by PID. No system daemon is
 * used. A test that needs Redis fails, never skips, when it cannot start one:
 * a missing install must not turn the suite green.
 *
 * `startRedisCluster(3)` makes a Redis Cluster of three masters on loopback
 * (no replicas), for the hash-tag rule: a script whose keys are not in one
 * slot fails there with CROSSSLOT.
 *
 * `startRedisTopology(clustered)` is either of the two with the links a test
 * opens to it, all closed by its `stop()`; `REDIS_TOPOLOGIES` runs a
 * `describe.each` on both.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { connectRedis, type RedisTarget } from '../../cluster/redis/connect.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { freePort } from '../../examples/cluster/processes.js';

export interface RedisServer {
  readonly url: string;
  readonly port: number;
  readonly pid: number;
  /** SIGKILL by PID and wait for the exit; idempotent. */
  stop(): Promise<void>;
}

export interface RedisClusterServers {
  /** One URL per master, each a seed for createCluster. */
  readonly urls: readonly string[];
  readonly servers: readonly RedisServer[];
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const live = new Set<ChildProcess>();
// A crashed test run must not leave servers behind.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function redisBinary(): string {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error !== undefined || found.status !== 0) {
    throw new Error('redis-server is not installed: `apt-get install -y redis-server` (as root; .ci/run does it on a fresh machine)');
  }
  return 'redis-server';
}

async function spawnRedis(extra: readonly string[], dir: string, fixedPort?: number): Promise<RedisServer> {
  const binary = redisBinary();
  let lastError = '';
  for (let attempt = 0; attempt < (fixedPort === undefined ? 3 : 1); attempt += 1) {
    const port = fixedPort ?? (await freePort());
    const child = spawn(
      binary,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no', ...extra],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    live.add(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const ready = await new Promise<boolean>((resolve) => {
      let output = '';
      const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        lastError = output.slice(-500);
        resolve(false);
      });
    });
    if (ready && child.pid !== undefined) {
      child.stdout!.resume();
      child.stderr!.resume();
      const stop = async (): Promise<void> => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
        live.delete(child);
      };
      return { url: `redis://127.0.0.1:${port}`, port, pid: child.pid, stop };
    }
    child.kill('SIGKILL');
    await exited;
    live.delete(child);
  }
  throw new Error(`redis-server did not start on a loopback port: ${lastError}`);
}

/** One Redis on a free loopback port, or on `port` (to restart one where its clients reconnect). */
export async function startRedis(options: { readonly port?: number } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-redis-'));
  const server = await spawnRedis([], dir, options.port);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const run = promisify(execFile);

/** redis-cli, asynchronously: a blocking call would stall this worker's other timers while a loaded machine answers slowly. */
async function cli(port: number, args: readonly string[]): Promise<string> {
  const { stdout, stderr } = await run('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8', timeout: START_TIMEOUT_MS });
  return `${stdout}${stderr}`;
}

const SLOTS = 16_384;

/**
 * The cluster made by hand rather than with `redis-cli --cluster create`:
 * that command sleeps a second at a time while it waits for the join and
 * ran past its timeout on a loaded CI machine. Each master takes an equal
 * range of slots and its own config epoch, the first meets the others, and
 * the gossip is polled until every node says `cluster_state:ok`.
 */
async function joinCluster(servers: readonly RedisServer[]): Promise<void> {
  const share = Math.ceil(SLOTS / servers.length);
  for (const [i, server] of servers.entries()) {
    const first = i * share;
    const last = Math.min(SLOTS, first + share) - 1;
    const added = await cli(server.port, ['cluster', 'addslotsrange', String(first), String(last)]);
    if (!added.includes('OK')) throw new Error(`CLUSTER ADDSLOTSRANGE on ${server.port}: ${added}`);
    const epoch = await cli(server.port, ['cluster', 'set-config-epoch', String(i + 1)]);
    if (!epoch.includes('OK')) throw new Error(`CLUSTER SET-CONFIG-EPOCH on ${server.port}: ${epoch}`);
  }
  for (const other of servers.slice(1)) {
    const met = await cli(servers[0]!.port, ['cluster', 'meet', '127.0.0.1', String(other.port)]);
    if (!met.includes('OK')) throw new Error(`CLUSTER MEET ${other.port}: ${met}`);
  }
  const deadline = Date.now() + 3 * START_TIMEOUT_MS;
  for (;;) {
    const states = await Promise.all(servers.map((server) => cli(server.port, ['cluster', 'info'])));
    if (states.every((info) => info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${servers.length}`))) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster did not reach cluster_state:ok: ${states.join(' | ').slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Redis Cluster of `masters` nodes on loopback, every slot assigned, state ok. */
export async function startRedisCluster(masters = 3): Promise<RedisClusterServers> {
  const dir = mkdtempSync(join(tmpdir(), 'rxmcp-redis-cluster-'));
  const servers: RedisServer[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i += 1) {
      servers.push(await spawnRedis(['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${i}.conf`, '--cluster-node-timeout', '2000'], dir));
    }
    await joinCluster(servers);
    return { urls: servers.map((server) => server.url), servers, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The topologies every store's tests run on, for `describe.each(REDIS_TOPOLOGIES)('... on %s', (_name, clustered) => ...)`. */
export const REDIS_TOPOLOGIES = [
  ['one Redis', false],
  ['a 3-node Redis Cluster', true],
] as const;

export interface RedisTopology {
  /** What connectRedis and redisCluster({ redis }) take: the one URL, or the Cluster's seeds. */
  readonly target: RedisTarget;
  /** A new link of its own (as another process would have); closed by stop(). */
  link(): Promise<RedisLink>;
  /** `n` new links, made one after another. */
  links(n: number): Promise<RedisLink[]>;
  /** Closes every link it made, then stops the server(s), even when a close failed (that failure is thrown after). */
  stop(): Promise<void>;
}

/** One Redis, or (clustered) a 3-master Redis Cluster, with the links the test opens to it. */
export async function startRedisTopology(clustered: boolean): Promise<RedisTopology> {
  const servers = clustered ? await startRedisCluster(3) : await startRedis();
  const target: RedisTarget = 'urls' in servers ? { cluster: servers.urls } : servers.url;
  const opened: RedisLink[] = [];
  const link = async (): Promise<RedisLink> => {
    const made = await connectRedis(target);
    opened.push(made);
    return made;
  };
  return {
    target,
    link,
    async links(n) {
      const made: RedisLink[] = [];
      for (let i = 0; i < n; i += 1) made.push(await link());
      return made;
    },
    async stop() {
      const closed = await Promise.allSettled(opened.splice(0).map((each) => each.close()));
      await servers.stop();
      const failed = closed.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    },
  };
}

/**
 * For one describe block: the topology started before its tests, `open`
 * taking the links they use, and stopped (links first) after them; a start
 * that failed leaves nothing to stop.
 */
export function redisTopologyForSuite(clustered: boolean, open: (redis: RedisTopology) => Promise<void>, timeoutMs = 30_000): void {
  let redis: RedisTopology | undefined;
  beforeAll(async () => {
    redis = await startRedisTopology(clustered);
    await open(redis);
  }, timeoutMs);
  afterAll(() => redis?.stop());
}
