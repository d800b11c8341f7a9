/**
 * The same two tools as the SDK reference, on rxmcp.
 *
 *   node dist/bench/servers/rxmcp.js --transport stdio|http|ws [--port N] [--max-in-flight N] [--auth]
 *
 * - `echo {text}` returns text; `sleep {ms}` is `timer(ms)`, so a thousand
 *   sleeping calls hold no threads and no promises, only timers.
 * - `--max-in-flight N` sets both maxInFlight and maxInFlightPerConnection
 *   (the 1000-outstanding scenario runs on one stdio connection); without it
 *   the library defaults apply.
 * - `--modern-sized-echo`: echo answers with a modern result's bytes (the
 *   control of the modern-era scenarios, echo-tool.ts).
 * - `--auth` (http only): every request carries a JWT bearer token that is
 *   verified (see bench-auth.ts); the READY URL's fragment holds the token.
 * - Authorization is chosen (allowAll, authorizerSource 'configured', a read
 *   authorizer) so the network boot guards let http and ws start.
 */
import { map, timer } from 'rxjs';
import { allowAll, createServer, Registry, type McpServer } from '../../lib/index.js';
import { registerEcho, registerModernSizedEcho } from './echo-tool.js';
import { serveStdio } from '../../transports/stdio.js';
import { serveWebSocket } from '../../transports/ws/index.js';
import { announceReady, exitOnSignals, parseServerArgs, type ServerArgs } from './argv.js';
import { serveRxmcpHttp } from './rxmcp-http.js';

function buildServer(args: ServerArgs): McpServer {
  const registry = new Registry();
  if (args.flags.has('--modern-sized-echo')) registerModernSizedEcho(registry);
  else registerEcho(registry);
  registry.registerTool({
    name: 'sleep',
    description: 'Waits ms milliseconds, then returns.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    handler: ({ ms }) => timer(Number(ms)).pipe(map(() => `slept ${String(ms)}`)),
  });
  const inFlight = args.maxInFlight === undefined ? {} : { maxInFlight: args.maxInFlight, maxInFlightPerConnection: args.maxInFlight };
  return createServer({
    name: 'rxmcp-bench',
    registry,
    authorizer: allowAll(),
    authorizerSource: 'configured',
    readAuthorizer: allowAll(),
    ...inFlight,
  });
}

exitOnSignals();
const args = parseServerArgs(process.argv.slice(2));
const server = buildServer(args);
if (args.transport === 'stdio') {
  const handle = serveStdio(server);
  void handle.closed.then(() => process.exit(0));
} else if (args.transport === 'ws') {
  // Every bench client is on 127.0.0.1, and the idle scenario holds 10 000 sockets: one address may hold them all.
  const ws = await serveWebSocket(server, { port: args.port, host: '127.0.0.1', maxSockets: 16_384, maxSocketsPerAddress: 16_384 });
  if (ws.url === undefined) throw new Error('serveWebSocket did not report a url');
  announceReady(ws.url);
} else {
  announceReady(await serveRxmcpHttp(server, args.port, args.flags.has('--auth')));
}
