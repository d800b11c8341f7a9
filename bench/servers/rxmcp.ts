/**
 * The same two tools as the SDK reference, on rxmcp (bench-server.ts),
 * imported by the package's names (`rxmcp`, `rxmcp/transports`) as a
 * user's server imports them: package.json's entry points, the bundle.
 *
 *   node dist/bench/servers/rxmcp.js --transport stdio|http|ws [--port N] [--max-in-flight N] [--auth]
 *
 * - `--max-in-flight N` sets both maxInFlight and maxInFlightPerConnection
 *   (the 1000-outstanding scenario runs on one stdio connection); without it
 *   the library defaults apply.
 * - `--modern-sized-echo`: echo answers with a modern result's bytes (the
 *   control of the modern-era scenarios, echo-tool.ts).
 * - `--auth` (http only): every request carries a JWT bearer token that is
 *   verified (see bench-auth.ts); the READY URL's fragment holds the token.
 */
import { createBenchServer } from './bench-server.js';
import { serveStdio, serveWebSocket } from 'rxmcp/transports';
import { announceReady, exitOnSignals, parseServerArgs } from './argv.js';

exitOnSignals();
const args = parseServerArgs(process.argv.slice(2));
const server = createBenchServer({
  ...(args.maxInFlight === undefined ? {} : { maxInFlight: args.maxInFlight }),
  modernSizedEcho: args.flags.has('--modern-sized-echo'),
});
if (args.transport === 'stdio') {
  const handle = serveStdio(server);
  void handle.closed.then(() => process.exit(0));
} else if (args.transport === 'ws') {
  // Every bench client is on 127.0.0.1, and the idle scenario holds 10 000 sockets: one address may hold them all.
  const ws = await serveWebSocket(server, { port: args.port, host: '127.0.0.1', maxSockets: 16_384, maxSocketsPerAddress: 16_384 });
  if (ws.url === undefined) throw new Error('serveWebSocket did not report a url');
  announceReady(ws.url);
} else {
  // Imported here: rxmcp-http.js brings bench-auth.js and jose, which a stdio or ws run never uses.
  const { serveRxmcpHttp } = await import('./rxmcp-http.js');
  announceReady(await serveRxmcpHttp(server, args.port, args.flags.has('--auth')));
}
