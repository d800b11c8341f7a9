/**
 * The demo CLI's arguments: Streamable HTTP, legacy SSE and WebSocket on one
 * port by default, or stdio with `--stdio`; the network transports can be
 * protected with JWT access tokens of an issuer (`--auth-issuer`).
 */
export interface DemoAuth {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri?: string;
  readonly scopes: readonly string[];
}

export type DemoCommand =
  | { readonly kind: 'serve'; readonly transport: 'stdio' }
  | { readonly kind: 'serve'; readonly transport: 'network'; readonly port: number; readonly host: string; readonly auth?: DemoAuth }
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

  Protected (an OAuth 2.1 resource server; network transports only):
  --auth-issuer ISS    accept JWT access tokens of this issuer
  --auth-audience AUD  issued for this audience (default: the /mcp URL)
  --auth-jwks URL      the issuer's JWKS (default: from its metadata)
  --auth-scopes A,B    scopes every request needs (delete_note also needs notes:write)

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
  const auth: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--stdio') stdio = true;
    else if (arg === '--auth-issuer' || arg === '--auth-audience' || arg === '--auth-jwks' || arg === '--auth-scopes') {
      const value = argv[++i];
      if (value === undefined || value === '') throw new UsageError(`${arg} needs a value`);
      auth[arg.slice(7)] = value;
    }
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--port') port = readPort(argv[++i], '--port');
    else if (arg === '--host') {
      const value = argv[++i];
      if (value === undefined || value === '') throw new UsageError('--host needs an address');
      host = value;
    } else throw new UsageError(`unknown argument: ${arg}`);
  }
  if (help) return { kind: 'help' };
  if (stdio) {
    if (Object.keys(auth).length > 0) throw new UsageError('--auth-* apply to the network transports, not --stdio');
    return { kind: 'serve', transport: 'stdio' };
  }
  if (auth.issuer === undefined) {
    if (Object.keys(auth).length > 0) throw new UsageError('--auth-audience, --auth-jwks and --auth-scopes need --auth-issuer');
    return { kind: 'serve', transport: 'network', port, host };
  }
  const scopes = (auth.scopes ?? '').split(',').map((scope) => scope.trim()).filter((scope) => scope.length > 0);
  const audience = auth.audience ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`;
  return {
    kind: 'serve',
    transport: 'network',
    port,
    host,
    auth: { issuer: auth.issuer, audience, scopes, ...(auth.jwks === undefined ? {} : { jwksUri: auth.jwks }) },
  };
}
