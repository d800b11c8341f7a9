/**
 * A real cluster for the multi-process tests: one redis-server (started by
 * test/helpers/redis-server.ts on a free loopback port; or a 3-master Redis
 * Cluster with `redisCluster: true`), N node children of
 * the BUILT example (dist/examples/cluster/node.js; `npm test` builds first,
 * run `npm run build` before one file alone), and the round-robin proxy in
 * this process. A node can be SIGKILLed and started again by PID. `stop()`
 * (call it in afterAll) stops the proxy, every node still running and Redis;
 * every wait here is bounded.
 *
 * The test reads what the example's tools left in Redis through `ledger`
 * (the same reader the nodes write with) and any other key through `link`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { clusterKeys, type ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { exampleLedger, type ExampleLedger } from '../../examples/cluster/ledger.js';
import { startNode, type Child } from '../../examples/cluster/processes.js';
import { startProxy, type ProxyHandle, type ProxyHooks } from '../../examples/cluster/proxy.js';
import { startRedisTopology } from './redis-server.js';

export const NODE_SCRIPT = fileURLToPath(new URL('../../dist/examples/cluster/node.js', import.meta.url));

export interface ClusterNode {
  readonly id: string;
  /** The node's own /mcp URL (bypassing the proxy). */
  readonly url: string;
  readonly origin: string;
  readonly pid: number;
  readonly alive: boolean;
}

export interface ClusterOptions {
  readonly nodes?: number;
  /** Extra node.js arguments, the same for every node (e.g. `--option maxInFlight=4`). */
  readonly nodeArgs?: readonly string[];
  /** Run the deployment on a 3-master Redis Cluster instead of one Redis (the hash-tag rule, end to end). */
  readonly redisCluster?: boolean;
  /** The proxy's hooks (steering, watching; see test/helpers/proxy-tap.ts). */
  readonly proxyHooks?: ProxyHooks;
}

export interface Cluster {
  /** The Redis the nodes use: one server, or a Redis Cluster's seeds. */
  readonly redisUrls: readonly string[];
  readonly serverId: string;
  readonly keys: ClusterKeys;
  readonly link: RedisLink;
  readonly ledger: ExampleLedger;
  readonly proxy: ProxyHandle;
  /** The proxy's /mcp and /sse URLs. */
  readonly url: string;
  readonly sseUrl: string;
  readonly nodes: readonly ClusterNode[];
  node(id: string): ClusterNode;
  /** SIGKILL by PID; resolves once the process is gone (bounded). */
  kill(id: string): Promise<void>;
  /** Starts a killed node again under its id, on a new port (the proxy is told). */
  restart(id: string): Promise<ClusterNode>;
  stop(): Promise<void>;
}

const KILL_WAIT_MS = 5_000;

export function assertClusterBuilt(): void {
  if (!existsSync(NODE_SCRIPT)) throw new Error(`${NODE_SCRIPT} is missing: run \`npm run build\` first (npm test does)`);
}

interface Running {
  id: string;
  child: Child & { url: string };
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  assertClusterBuilt();
  const count = options.nodes ?? 3;
  const serverId = `e2e-${randomBytes(4).toString('hex')}`;
  const keys = clusterKeys(serverId);
  const redis = await startRedisTopology(options.redisCluster ?? false);
  const redisUrls = typeof redis.target === 'string' ? [redis.target] : redis.target.cluster;
  const running: Running[] = [];
  let link: RedisLink | undefined;
  let proxy: ProxyHandle | undefined;
  const env = { ...process.env, LOG_LEVEL: process.env.RXMCP_CLUSTER_LOG ?? 'silent', NODE_ENV: 'production' };
  const launch = (id: string) =>
    startNode(NODE_SCRIPT, ['--redis', redisUrls.join(','), '--server-id', serverId, '--node-id', id, ...(options.nodeArgs ?? [])], env);
  const stop = async () => {
    await proxy?.close();
    await Promise.all(running.map((node) => node.child.stop(2_000)));
    await redis.stop();
  };
  try {
    for (let i = 0; i < count; i++) {
      const id = String.fromCharCode(97 + i);
      running.push({ id, child: await launch(id) });
    }
    link = await redis.link();
    proxy = await startProxy({ upstreams: running.map((node) => node.child.url), downForMs: 500, hooks: options.proxyHooks });
  } catch (err) {
    await stop();
    throw err;
  }
  const find = (id: string): Running => {
    const found = running.find((node) => node.id === id);
    if (found === undefined) throw new Error(`no node ${id}`);
    return found;
  };
  const view = (node: Running): ClusterNode => ({
    id: node.id,
    url: node.child.url,
    origin: new URL(node.child.url).origin,
    pid: node.child.pid,
    get alive() {
      return node.child.process.exitCode === null && node.child.process.signalCode === null;
    },
  });
  const ready = proxy;
  const readyLink = link;
  return {
    redisUrls,
    serverId,
    keys,
    link: readyLink,
    ledger: exampleLedger(readyLink, keys, 'test'),
    proxy: ready,
    url: `${ready.origin}/mcp`,
    sseUrl: `${ready.origin}/sse`,
    get nodes() {
      return running.map(view);
    },
    node: (id) => view(find(id)),
    async kill(id) {
      const node = find(id);
      const child = node.child.process;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`node ${id} (pid ${node.child.pid}) did not exit within ${KILL_WAIT_MS} ms of SIGKILL`)), KILL_WAIT_MS);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      process.kill(node.child.pid, 'SIGKILL');
      await gone;
    },
    async restart(id) {
      const node = find(id);
      if (node.child.process.exitCode === null && node.child.process.signalCode === null) throw new Error(`node ${id} is still running`);
      node.child = await launch(id);
      ready.setUpstreams(running.map((each) => each.child.url));
      return view(node);
    },
    stop,
  };
}

/**
 * For a test file on one cluster: started before its tests (beforeAll),
 * stopped after them (afterAll, so after the file's own afterAll hooks). What
 * it returns reads through to the started cluster: use it in tests and hooks,
 * not while the file is being collected.
 */
export function clusterPerFile(options: ClusterOptions = {}, startTimeoutMs = 30_000): Cluster {
  let started: Cluster | undefined;
  beforeAll(async () => {
    started = await startCluster(options);
  }, startTimeoutMs);
  afterAll(async () => {
    await started?.stop();
  });
  return new Proxy({} as Cluster, {
    get(_target, key) {
      if (started === undefined) throw new Error('the cluster was read before beforeAll started it');
      return Reflect.get(started, key) as unknown;
    },
  });
}
