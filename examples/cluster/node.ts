#!/usr/bin/env node
/**
 * One node of the cluster example: the example server (server.ts) over
 * Streamable HTTP (both eras, /mcp) and legacy HTTP+SSE (/sse, /messages) on
 * 127.0.0.1, sharing its state with the other nodes through Redis by way of
 * `redisCluster()`. Prints `READY <url>` on stdout once it serves; logs go to
 * stderr. SIGINT/SIGTERM close it (streams, Redis connection) and it exits 0;
 * a bad argument exits 2, a failed start 1.
 */
import { pino } from 'pino';
import { redisCluster } from '../../cluster/redis/cluster.js';
import { serveHttp } from '../../transports/index.js';
import { NODE_USAGE, NodeUsageError, parseNodeArgs, type NodeArgs } from './args.js';
import { exampleLedger, HEARTBEAT_TTL_MS } from './ledger.js';
import { createClusterNodeServer } from './server.js';

function readArgs(): NodeArgs | undefined {
  try {
    return parseNodeArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof NodeUsageError)) throw err;
    process.stderr.write(`${err.message}\n${NODE_USAGE}\n`);
    process.exitCode = 2;
    return undefined;
  }
}

function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve(signal);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}

async function main(): Promise<void> {
  const args = readArgs();
  if (args === undefined) return;
  const stopped = stopSignal();
  const logger = pino({ name: 'rxmcp-cluster-node', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
  const cluster = await redisCluster({
    // Tasks on the shared Redis store: created on one node, read, answered and cancelled on any.
    tasks: { leaseMs: args.taskLeaseMs },
    ...args.clusterOptions,
    redis: args.redis,
    serverId: args.serverId,
    ...(args.nodeId === undefined ? {} : { nodeId: args.nodeId }),
    logger,
    onError: (err) => logger.warn({ err }, 'Redis connection error'),
  });
  const ledger = exampleLedger(cluster.link, cluster.keys, cluster.nodeId);
  await ledger.heartbeat();
  // The heartbeat says "this node's handlers are alive" to the example's running gauge; a killed node's lapses.
  const heartbeat = setInterval(() => {
    ledger.heartbeat().catch((err: unknown) => logger.warn({ err }, 'heartbeat failed'));
  }, Math.floor(HEARTBEAT_TTL_MS / 3));
  const server = createClusterNodeServer({
    nodeId: cluster.nodeId,
    ledger,
    serverOptions: { logger, ...args.serverOptions, ...cluster.serverOptions },
  });
  const http = await serveHttp(server, {
    port: args.port,
    host: args.host,
    // The example's proxy is the only way in and names the client in this header.
    trustedProxyHeader: 'x-forwarded-for',
    // Longer than the proxy keeps an idle upstream socket, so the proxy never sends on a socket this side is closing.
    idleSocketTimeoutMs: 30_000,
    ...cluster.httpOptions,
  });
  // Legacy sessions this node owns are relayed here by the others.
  await cluster.advertise(new URL(http.url).origin);
  process.stdout.write(`READY ${http.url}\n`);
  logger.info({ url: http.url, sse: http.sseUrl, node: cluster.nodeId, serverId: args.serverId }, 'cluster node listening');
  const reason = await stopped;
  clearInterval(heartbeat);
  await http.close();
  server.close();
  await cluster.close();
  logger.info({ reason, node: cluster.nodeId }, 'cluster node stopped');
  process.exitCode = 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`cluster node failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
  // A failed start may leave a Redis client reconnecting forever: nothing else is left to finish.
  process.exit(1);
});
