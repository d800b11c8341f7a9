/**
 * The cluster benchmark's server: one rxmcp process over Streamable HTTP,
 * alone (in-memory stores) or as a node of a deployment on Redis, with the
 * same three tools either way so each Redis path is measured against its
 * in-memory twin:
 *
 * - `echo {text}`: the throughput call (no Redis on its path unless permits are on);
 * - `approve_echo {text}`: the authorizer asks, so a modern call is an MRTR
 *   round trip (input_required with a ticket, then the retry redeems it):
 *   the approval ledger's admit + take;
 * - `touch {uri}`: `server.resourceUpdated(uri)`: one event-bus publish.
 *
 *   node dist/bench/servers/cluster-node.js [--redis URL --server-id ID --node-id ID] [--permits N] [--port N]
 *
 * `--permits N` turns the cluster-wide permits on (maxInFlight N, the same
 * per principal, so the bench's one peer is not the cap): an acquire and a
 * release on every call. Prints `READY <url>`.
 */
import { allowAll, allowlist, createServer, Registry, ToolError, type ServerOptions } from 'rxmcp';
import { redisCluster } from 'rxmcp/redis';
import { serveHttp } from 'rxmcp/transports';
import { announceReady } from './argv.js';

function valueOf(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}

const argv = process.argv.slice(2);
const redis = valueOf(argv, '--redis');
const permits = valueOf(argv, '--permits');
const registry = new Registry();
const text = (value: unknown) => {
  if (typeof value !== 'string') throw new ToolError('text must be a string');
  return value;
};
registry.registerTool({ name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, handler: ({ text: t }) => text(t) });
registry.registerTool({ name: 'approve_echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, handler: ({ text: t }) => text(t) });
registry.registerTool({
  name: 'touch',
  inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  handler: ({ uri }) => {
    server.resourceUpdated(text(uri));
    return 'touched';
  },
});

const cluster =
  redis === undefined
    ? undefined
    : await redisCluster({
        redis,
        serverId: valueOf(argv, '--server-id') ?? 'bench',
        nodeId: valueOf(argv, '--node-id') ?? `node-${process.pid}`,
        ...(permits === undefined ? {} : { permits: { maxInFlight: Number(permits), maxInFlightPerPrincipal: Number(permits) } }),
      });
const clusterOptions: Partial<ServerOptions> = cluster?.serverOptions ?? {};
const server = createServer({
  name: 'rxmcp-cluster-bench',
  registry,
  authorizer: allowlist(['echo', 'touch'], { ask: { approve_echo: 'Approve the echo?' } }),
  authorizerSource: 'configured',
  readAuthorizer: allowAll(),
  // The bench's one peer sends many tickets; the defaults (32 per holder) would evict under C=16 retries.
  maxParkedElicitations: 256,
  maxParkedElicitationsPerPeer: 256,
  maxParkedElicitationsTotal: 256,
  ...clusterOptions,
});
const http = await serveHttp(server, {
  port: Number(valueOf(argv, '--port') ?? 0),
  host: '127.0.0.1',
  trustedProxyHeader: 'x-forwarded-for',
  idleSocketTimeoutMs: 30_000,
  ...(cluster?.httpOptions ?? {}),
});
if (cluster !== undefined) await cluster.advertise(new URL(http.url).origin);
const stop = () => process.exit(0);
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
announceReady(http.url);
