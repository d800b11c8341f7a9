#!/usr/bin/env node
/**
 * The demo CLI: serves the demo server over stdio. stdout is the wire, so
 * everything human-readable (the connect hint, the pino log) goes to stderr.
 * Exits 0 when stdin ends (the client went away) or on SIGINT/SIGTERM, once
 * the connection is closed; 2 on a bad argument.
 */
import { pino } from 'pino';
import { serveStdio } from '../../transports/index.js';
import { parseDemoArgs, UsageError, USAGE, type DemoCommand } from './args.js';
import { createDemoServer } from './server.js';

const CONNECT_HINT = `rxmcp demo: serving MCP over stdio (stdout is the wire; this text is on stderr).
  Inspect it:   npx @modelcontextprotocol/inspector node dist/examples/demo/main.js
  Or type one JSON-RPC message per line, e.g.
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"tty","version":"0"}}}
  End input (Ctrl-D) to stop.
`;

function readCommand(): DemoCommand | undefined {
  try {
    return parseDemoArgs(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
    return undefined;
  }
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
  const stdio = serveStdio(server);
  let reason = 'input ended';
  const onSignal = (signal: NodeJS.Signals) => {
    reason = signal;
    stdio.close();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.stderr.write(CONNECT_HINT);
  logger.info({ transport: 'stdio' }, 'rxmcp demo serving');

  await stdio.closed;
  // From here a signal takes its default action again: once closed, nothing is left to shut down gracefully.
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  server.close();
  logger.info({ reason }, 'rxmcp demo stopped');
  // No process.exit(): the process ends because nothing is left running, which is what proves no leak.
  process.exitCode = 0;
}

main().catch((err: unknown) => {
  process.stderr.write(`rxmcp demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
