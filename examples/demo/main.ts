#!/usr/bin/env node
/**
 * The demo CLI. By default it serves the demo server over Streamable HTTP
 * (/mcp), legacy HTTP+SSE (/sse) and WebSocket (/ws) on one port of
 * 127.0.0.1, and prints the URLs; with `--stdio` it serves stdin/stdout
 * instead (stdout is then the wire, so everything human-readable goes to
 * stderr either way). Exits 0 on SIGINT/SIGTERM or, for stdio, when stdin
 * ends; 2 on a bad argument; 1 when it cannot start.
 */
import { pino, type Logger } from 'pino';
import { serveHttp, serveStdio, serveWebSocket } from '../../transports/index.js';
import { jwtBearer, type McpServer } from '../../lib/index.js';
import { parseDemoArgs, UsageError, USAGE, type DemoAuth, type DemoCommand } from './args.js';
import { createDemoServer } from './server.js';
import { INSPECTOR } from './inspector.js';

const STDIO_HINT = `rxmcp demo: serving MCP over stdio (stdout is the wire; this text is on stderr).
  Inspect it:   npx ${INSPECTOR} node dist/examples/demo/main.js --stdio
  Or type one JSON-RPC message per line, e.g.
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tty","version":"0"}}}
  End input (Ctrl-D) to stop.
`;

function networkBanner(mcpUrl: string, sseUrl: string | null, wsUrl: string): string {
  return `rxmcp demo listening
  Streamable HTTP   ${mcpUrl}
  Legacy HTTP+SSE   ${sseUrl ?? '(off)'}
  WebSocket         ${wsUrl}
  Try it:   npx ${INSPECTOR} --cli ${mcpUrl} --transport http --method tools/list
  Stop it:  Ctrl-C
`;
}

function readCommand(): DemoCommand | undefined {
  try {
    return parseDemoArgs(process.argv.slice(2), process.env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return undefined;
  }
}

/**
 * Resolves on the first SIGINT/SIGTERM with its name. Installed before
 * anything is served, so a signal that arrives right after the banner is a
 * clean stop rather than the default kill.
 */
function onStopSignal(): { stopped: Promise<string>; release(): void } {
  let release = () => {};
  const stopped = new Promise<string>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      release();
      resolve(signal);
    };
    release = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
  return { stopped, release };
}

async function serveStdioDemo(server: McpServer, logger: Logger, stopped: Promise<string>): Promise<void> {
  const stdio = serveStdio(server);
  process.stderr.write(STDIO_HINT);
  logger.info({ transport: 'stdio' }, 'rxmcp demo serving');
  const reason = await Promise.race([stopped, stdio.closed.then(() => 'input ended')]);
  stdio.close();
  await stdio.closed;
  logger.info({ reason }, 'rxmcp demo stopped');
}

/** The protected variant: tokens of `auth.issuer` for `auth.audience`; the canonical resource is the audience when it is a URL. */
function authOptions(server: McpServer, auth: DemoAuth | undefined) {
  if (auth === undefined) return {};
  let resource: string | undefined;
  try {
    resource = new URL(auth.audience).protocol.startsWith('http') ? auth.audience : undefined;
  } catch {
    resource = undefined;
  }
  return {
    authenticator: jwtBearer({ issuer: auth.issuer, audiences: [auth.audience], ...(auth.jwksUri === undefined ? {} : { jwksUri: auth.jwksUri }), scheduler: server.scheduler }),
    authorizationServers: [auth.issuer],
    ...(resource === undefined ? {} : { resource }),
    ...(auth.scopes.length === 0 ? {} : { requiredScopes: auth.scopes }),
  };
}

async function serveNetworkDemo(server: McpServer, logger: Logger, stopped: Promise<string>, port: number, host: string, auth?: DemoAuth): Promise<void> {
  const http = await serveHttp(server, { port, host, ...authOptions(server, auth) });
  const protectedBy = http.handler.options.auth;
  const ws = await serveWebSocket(server, {
    server: http.httpServer,
    path: '/ws',
    ...(protectedBy === null
      ? {}
      : { authenticator: protectedBy.authenticator, resource: protectedBy.resource, requiredScopes: [...protectedBy.requiredScopes] }),
  });
  const wsUrl = http.url.replace(/^http/, 'ws').replace(/\/mcp$/, '/ws');
  process.stderr.write(networkBanner(http.url, http.sseUrl, wsUrl));
  logger.info({ url: http.url, sse: http.sseUrl, ws: wsUrl, protectedBy: protectedBy?.authorizationServers }, 'rxmcp demo listening');
  const reason = await stopped;
  await ws.close();
  await http.close();
  logger.info({ reason }, 'rxmcp demo stopped');
}

async function main(): Promise<void> {
  const command = readCommand();
  if (command === undefined) return;
  if (command.kind === 'help') {
    process.stderr.write(`${USAGE}\n`);
    return;
  }
  const logger = pino({ name: 'rxmcp-demo', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
  const server = createDemoServer({ logger });
  const signals = onStopSignal();
  try {
    if (command.transport === 'stdio') await serveStdioDemo(server, logger, signals.stopped);
    else await serveNetworkDemo(server, logger, signals.stopped, command.port, command.host, command.auth);
  } finally {
    // From here a signal takes its default action again: nothing is left to shut down gracefully.
    signals.release();
    server.close();
  }
  // No process.exit(): the process ends because nothing is left running, which is what proves no leak.
  process.exitCode = 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`rxmcp demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
