/**
 * Arguments of one cluster node (node.ts). Every node of a deployment gets
 * the same `--redis` and `--server-id` and its own `--node-id`.
 */
export interface NodeArgs {
  readonly port: number;
  readonly host: string;
  /** One URL, or several (comma-separated on the command line): the seeds of a Redis Cluster. */
  readonly redis: string | { readonly cluster: readonly string[] };
  readonly serverId: string;
  readonly nodeId: string | undefined;
  /** A name-value pair per `--option name=value`: numeric server options for the tests (caps, leases). */
  readonly serverOptions: Readonly<Record<string, number>>;
  /** `--cluster-options JSON`: more options for redisCluster() (e.g. its permits), merged over the defaults. */
  readonly clusterOptions: Readonly<Record<string, unknown>>;
  /** `--task-lease-ms N`: the Redis task store's lease (how soon a dead node's tasks are `failed`); undefined: its default. */
  readonly taskLeaseMs: number | undefined;
}

export const NODE_USAGE = `usage: node dist/examples/cluster/node.js --redis URL [--port N] [--host H] [--server-id ID] [--node-id ID] [--option NAME=N ...] [--task-lease-ms N]

  --redis URL       the deployment's Redis (env REDIS_URL works too); URL,URL,... for a Redis Cluster's seeds
  --port N          HTTP port (default 0: a free one); the URL is printed as "READY <url>" on stdout
  --host H          address to bind (default 127.0.0.1)
  --server-id ID    the deployment's name, the same on every node (default cluster-example)
  --node-id ID      this node's name (default random)
  --option NAME=N   a numeric createServer option (e.g. maxInFlight=8); repeatable
  --cluster-options JSON   more options for redisCluster(), as a JSON object
  --task-lease-ms N        the task store's lease: a task whose node died is failed within it (default 15000, at least 30)`;

export class NodeUsageError extends Error {
  override name = 'NodeUsageError';
}

const ID = /^[A-Za-z0-9._-]{1,64}$/;
const OPTION = /^([A-Za-z][A-Za-z0-9]{0,63})=(\d{1,9})$/;

function value(argv: readonly string[], i: number, flag: string): string {
  const found = argv[i];
  if (found === undefined || found === '') throw new NodeUsageError(`${flag} needs a value`);
  return found;
}

export function parseNodeArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): NodeArgs {
  let port = 0;
  let host = '127.0.0.1';
  let redis = env.REDIS_URL;
  let serverId = 'cluster-example';
  let nodeId: string | undefined;
  const serverOptions: Record<string, number> = {};
  let clusterOptions: Record<string, unknown> = {};
  let taskLeaseMs: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--port') {
      const raw = value(argv, ++i, flag);
      port = Number(raw);
      if (!/^\d+$/.test(raw) || port > 65535) throw new NodeUsageError(`--port must be a port number, got ${raw}`);
    } else if (flag === '--host') host = value(argv, ++i, flag);
    else if (flag === '--redis') redis = value(argv, ++i, flag);
    else if (flag === '--server-id' || flag === '--node-id') {
      const id = value(argv, ++i, flag);
      if (!ID.test(id)) throw new NodeUsageError(`${flag} must be 1-64 letters, digits, '.', '_' or '-'`);
      if (flag === '--server-id') serverId = id;
      else nodeId = id;
    } else if (flag === '--option') {
      const match = OPTION.exec(value(argv, ++i, flag));
      if (match === null) throw new NodeUsageError('--option must be NAME=N (a positive integer)');
      serverOptions[match[1]!] = Number(match[2]);
    } else if (flag === '--cluster-options') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value(argv, ++i, flag));
      } catch {
        parsed = undefined;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new NodeUsageError('--cluster-options must be a JSON object');
      clusterOptions = parsed as Record<string, unknown>;
    } else if (flag === '--task-lease-ms') {
      const raw = value(argv, ++i, flag);
      taskLeaseMs = Number(raw);
      if (!/^\d{1,9}$/.test(raw) || taskLeaseMs < 30) throw new NodeUsageError(`--task-lease-ms must be an integer of at least 30, got ${raw}`);
    } else throw new NodeUsageError(`unknown argument: ${flag}`);
  }
  const urls = (redis ?? '').split(',').filter((url) => url !== '');
  if (urls.length === 0 || !urls.every((url) => /^rediss?:\/\//.test(url))) throw new NodeUsageError('--redis redis://HOST:PORT is required');
  return { port, host, redis: urls.length === 1 ? urls[0]! : { cluster: urls }, serverId, nodeId, serverOptions, clusterOptions, taskLeaseMs };
}
