/**
 * One node of a legacy-era test deployment, as a child process on built code
 * (dist/; build first): an rxmcp server on 127.0.0.1 (both HTTP transports,
 * an ephemeral port) in a redisCluster() deployment, advertising its own
 * address for relays. It prints one JSON line `{"ready":true,"url":...,
 * "nodeId":...}` once it serves. Env: REDIS_URL, SERVER_ID, NODE_ID.
 *
 * Its tools say which node ran them, so a test can tell the owner served a
 * request that landed elsewhere:
 * - echo {text}: `<nodeId>:<text>`
 * - deploy: asks approval (an elicitation), counts its runs; runs: the count
 * - slow: waits for its signal; slowStatus: whether it was aborted
 * - ticker: progress 1, waits for release, then progress 2 and 3, then 'ticked'
 * - release: lets ticker go on
 * - broadcast: server.notify(tools/list_changed), not tied to the request
 */
import { createServer, Registry } from '../../dist/lib/index.js';
import { serveHttp } from '../../dist/transports/index.js';
import { redisCluster } from '../../dist/cluster/redis/index.js';

const nodeId = process.env.NODE_ID;
const cluster = await redisCluster({
  redis: process.env.REDIS_URL,
  serverId: process.env.SERVER_ID,
  nodeId,
  legacy: { heartbeatMs: 500 },
  onError: (err) => process.stderr.write(`redis: ${String(err)}\n`),
});

let deployRuns = 0;
let slowAborted = false;
let releaseTicker;
const released = () => new Promise((resolve) => (releaseTicker = resolve));

const registry = new Registry();
registry.registerTool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  handler: (args) => `${nodeId}:${String(args.text)}`,
});
registry.registerTool({
  name: 'deploy',
  handler: () => {
    deployRuns += 1;
    return `deployed by ${nodeId}`;
  },
});
registry.registerTool({ name: 'runs', handler: () => String(deployRuns) });
registry.registerTool({
  name: 'slow',
  handler: (_args, ctx) =>
    new Promise((resolve) => {
      ctx.signal.addEventListener('abort', () => {
        slowAborted = true;
        resolve('aborted');
      });
    }),
});
registry.registerTool({ name: 'slowStatus', handler: () => (slowAborted ? 'aborted' : 'running') });
registry.registerTool({
  name: 'ticker',
  handler: async (_args, ctx) => {
    const gate = released();
    ctx.progress(1, 3);
    await gate;
    ctx.progress(2, 3);
    ctx.progress(3, 3);
    return 'ticked';
  },
});
registry.registerTool({
  name: 'release',
  handler: () => {
    releaseTicker?.();
    return 'released';
  },
});

registry.registerTool({
  name: 'broadcast',
  handler: () => {
    server.notify('notifications/tools/list_changed');
    return 'sent';
  },
});

const server = createServer({
  registry,
  authorizer: (tool) => (tool === 'deploy' ? { ask: 'Deploy now?' } : 'allow'),
  authorizerSource: 'configured',
  ...cluster.serverOptions,
});
const http = await serveHttp(server, { port: 0, host: '127.0.0.1', requireAuthorization: false, ...cluster.httpOptions });
await cluster.advertise(`http://127.0.0.1:${http.port}`);
process.stdout.write(`${JSON.stringify({ ready: true, url: `http://127.0.0.1:${http.port}`, nodeId: cluster.nodeId })}\n`);

process.on('SIGTERM', () => {
  void http.close().then(() => cluster.close()).then(() => process.exit(0));
});
