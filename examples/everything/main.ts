#!/usr/bin/env node
/**
 * Serves the conformance fixture over Streamable HTTP (and legacy SSE) on
 * 127.0.0.1: `node dist/examples/everything/main.js [--port N]`, the port
 * defaulting to $PORT, then 3001; 0 picks a free one. The first stdout line
 * names the endpoint URL (scripts/conformance.sh reads it); logs go to
 * stderr. SIGINT/SIGTERM close every session and the listener; exit status
 * 0 then, 2 on a bad argument.
 */
import { pino } from 'pino';
import { serveHttp } from '../../transports/http/serve.js';
import { createEverythingServer } from './server.js';

export const DEFAULT_PORT = 3001;

const USAGE = 'usage: main.js [--port N]   (default: $PORT, else 3001; 0 picks a free port)';

function parsePort(value: string | undefined, source: string): number {
  const port = Number(value);
  if (value === undefined || value === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError(`${source} must be a port number from 0 to 65535, got ${JSON.stringify(value)}`);
  }
  return port;
}

function portFrom(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const [flag, value, ...rest] = argv;
  if (flag === undefined) return env.PORT === undefined ? DEFAULT_PORT : parsePort(env.PORT, 'PORT');
  if (flag !== '--port' || rest.length > 0) throw new RangeError(`unexpected arguments: ${argv.join(' ')}`);
  return parsePort(value, '--port');
}

async function main(): Promise<void> {
  let port: number;
  try {
    port = portFrom(process.argv.slice(2), process.env);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const logger = pino({ name: 'rxmcp-everything', level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination({ dest: 2, sync: true }));
  const server = createEverythingServer({ logger });
  const http = await serveHttp(server, { port, host: '127.0.0.1' });
  process.stdout.write(`rxmcp everything: listening on ${http.url}\n`);
  const stop = async () => {
    await http.close();
    server.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`rxmcp everything failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
