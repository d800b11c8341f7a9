/**
 * The demo CLI's arguments: Streamable HTTP, legacy SSE and WebSocket on one
 * port by default, or stdio with `--stdio`.
 */
export type DemoCommand =
  | { readonly kind: 'serve'; readonly transport: 'stdio' }
  | { readonly kind: 'serve'; readonly transport: 'network'; readonly port: number; readonly host: string }
  | { readonly kind: 'help' };

export const DEFAULT_PORT = 3000;
export const DEFAULT_HOST = '127.0.0.1';

export const USAGE = `usage: node dist/examples/demo/main.js [--stdio | --port N] [--host H] [--help]

  (default)   serve Streamable HTTP on /mcp, legacy SSE on /sse and WebSocket on /ws,
              on http://127.0.0.1:3000
  --port N    the port for the network transports (0 picks a free one; env PORT works too)
  --host H    the address to bind (default 127.0.0.1)
  --stdio     serve MCP over stdin/stdout instead
  --help      show this text

Environment: LOG_LEVEL (pino level for the stderr log; default info), PORT.`;

export class UsageError extends Error {
  override name = 'UsageError';
}

function readPort(value: string | undefined, from: string): number {
  const port = Number(value);
  if (value === undefined || value === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`${from} must be a port number from 0 to 65535, got ${JSON.stringify(value ?? '')}`);
  }
  return port;
}

export function parseDemoArgs(argv: readonly string[], env: Record<string, string | undefined> = {}): DemoCommand {
  let stdio = false;
  let help = false;
  let port = env.PORT === undefined ? DEFAULT_PORT : readPort(env.PORT, 'PORT');
  let host = DEFAULT_HOST;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--stdio') stdio = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--port') port = readPort(argv[++i], '--port');
    else if (arg === '--host') {
      const value = argv[++i];
      if (value === undefined || value === '') throw new UsageError('--host needs an address');
      host = value;
    } else throw new UsageError(`unknown argument: ${arg}`);
  }
  if (help) return { kind: 'help' };
  return stdio ? { kind: 'serve', transport: 'stdio' } : { kind: 'serve', transport: 'network', port, host };
}
