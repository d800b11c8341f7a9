#!/usr/bin/env node
/**
 * The rxmcp CLI (package.json "bin"; run `npm run build` first, it runs from
 * dist/). Serves a user's server module over stdio, HTTP or WebSocket.
 * stdout belongs to the stdio transport, so every log line goes to stderr.
 * SIGINT/SIGTERM close the transport and the server, then exit 0; stdin
 * ending does the same for --stdio.
 */
import { pino } from 'pino';
import { jwtBearer } from '../../lib/auth/jwt-bearer.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { TransportAuthOptions } from '../../transports/auth-options.js';
import { serveHttp } from '../../transports/http/serve.js';
import { serveStdio } from '../../transports/stdio.js';
import { serveWebSocket } from '../../transports/ws/serve-websocket.js';
import { LOOPBACK_NAMES } from '../../transports/ws/options.js';
import { USAGE, UsageError, parseCommandLine, type Command } from './args.js';
import { describeFatal, verboseLevel } from './fatal.js';
import { loadServer } from './load-server.js';

type ServeCommand = Extract<Command, { command: 'serve' }>;

interface Running {
  /** Resolves when the transport ends on its own (stdin closed); never for a listener. */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

const logger = pino({ name: 'rxmcp', level: process.env.RXMCP_LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));

const WILDCARD_HOSTS = new Set(['0.0.0.0', '[::]']);

/** Loopback names always; the --host name when it is one host, not a wildcard; then --allow-host. */
function allowedHosts(command: ServeCommand): string[] {
  const bracketed = command.host.includes(':') && !command.host.startsWith('[') ? `[${command.host}]` : command.host;
  const own = WILDCARD_HOSTS.has(bracketed) ? [] : [bracketed];
  return [...LOOPBACK_NAMES, ...own, ...command.allowHosts];
}

/** The transports' authentication options: a jwtBearer on the server's clock, or the explicit opt-out. */
function authOptions(server: McpServer, command: ServeCommand): TransportAuthOptions {
  if (command.allowUnauthenticated === true) return { requireAuthentication: false };
  const auth = command.auth;
  if (auth === undefined) return {};
  return {
    authenticator: jwtBearer({
      issuer: auth.issuer,
      audiences: [auth.audience],
      ...(auth.jwksUri === undefined ? {} : { jwksUri: auth.jwksUri }),
      scheduler: server.scheduler,
    }),
    ...(auth.resource === undefined ? {} : { resource: auth.resource }),
    authorizationServers: [auth.issuer],
    ...(auth.scopes.length === 0 ? {} : { requiredScopes: auth.scopes }),
  };
}

async function start(server: McpServer, command: ServeCommand): Promise<Running> {
  switch (command.transport.kind) {
    case 'stdio': {
      const handle = serveStdio(server);
      logger.info('serving on stdio');
      return { ended: handle.closed, close: async () => handle.close() };
    }
    case 'ws': {
      const transport = await serveWebSocket(server, {
        port: command.transport.port,
        host: command.host,
        path: '/ws',
        allowedHosts: allowedHosts(command),
        ...authOptions(server, command),
      });
      logger.info({ url: transport.url }, 'listening');
      return { ended: new Promise(() => {}), close: () => transport.close() };
    }
    case 'http': {
      const transport = await serveHttp(server, { port: command.transport.port, host: command.host, allowedHosts: allowedHosts(command), ...authOptions(server, command) });
      logger.info({ url: transport.url, sseUrl: transport.sseUrl }, 'listening');
      return { ended: new Promise(() => {}), close: () => transport.close() };
    }
  }
}

async function serve(command: ServeCommand): Promise<void> {
  let server: McpServer | undefined;
  let running: Running | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (why: string) => {
    stopping ??= (async () => {
      logger.info({ why }, 'shutting down');
      await running?.close();
      server?.close();
      process.exit(0);
    })();
    return stopping;
  };
  // Installed first: a signal that arrives while the module loads or the transport starts still shuts down cleanly.
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  server = await loadServer(command.module);
  running = await start(server, command);
  await running.ended;
  await stop('transport ended');
}

async function main(argv: readonly string[]): Promise<void> {
  let command: Command;
  try {
    command = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`rxmcp: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (command.command === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  await serve(command);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(describeFatal(error, { verbose: verboseLevel(process.env.RXMCP_LOG_LEVEL), cwd: process.cwd() }));
  process.exit(1);
});
