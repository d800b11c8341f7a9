/**
 * The rxmcp command line: `rxmcp serve <module> [--stdio | --http PORT |
 * --ws PORT] [--host H] [--allow-host NAME]... [--auth-issuer ISS
 * --auth-audience AUD [--auth-jwks URL] [--auth-scopes A,B]
 * [--auth-resource URL]] [--allow-unauthenticated]`, or `rxmcp --help`.
 * Parsing only; a bad command line is a UsageError whose message the CLI
 * prints above the usage text.
 */
import { parseArgs } from 'node:util';

export const USAGE = `Usage:
  rxmcp serve <module> [--stdio | --http PORT | --ws PORT] [--host HOST] [--allow-host NAME]...
  rxmcp --help

Serves the MCP server that <module> exports: its default export (or a
createServer export) is an McpServer, a function returning one (sync or async),
or a Promise of one. <module> is JavaScript; a relative path is resolved from
the working directory.

Transports (one of them; --stdio is the default):
  --stdio            newline-delimited JSON-RPC on stdin/stdout
  --http PORT        Streamable HTTP (and legacy SSE) on PORT (0 picks a free port)
  --ws PORT          WebSocket, subprotocol "mcp", on PORT (0 picks a free port)

Options:
  --host HOST        interface to listen on (default 127.0.0.1)
  --allow-host NAME  also accept this Host header name (repeatable; loopback names
                     are always accepted, and --host when it names one host)
  -h, --help         print this text

Authentication (OAuth 2.1 resource server; --http and --ws only):
  --auth-issuer ISS      accept JWT access tokens from this issuer
  --auth-audience AUD    ... issued for this audience (required with --auth-issuer)
  --auth-jwks URL        the issuer's JWKS (default: discovered from its metadata)
  --auth-scopes A,B      scopes every request needs
  --auth-resource URL    the canonical resource URI (default: AUD when it is a URL,
                         else the endpoint's own URL)
  --allow-unauthenticated  serve a non-loopback --host without authentication

Network transports refuse to start unless the server has a chosen authorizer and
a read authorizer, or NODE_ENV is development or test; on a non-loopback --host
they also need --auth-issuer (or --allow-unauthenticated). Logs go to stderr.
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export type TransportChoice =
  | { readonly kind: 'stdio' }
  | { readonly kind: 'http'; readonly port: number }
  | { readonly kind: 'ws'; readonly port: number };

/** The JWT bearer authentication the command line asks for. */
export interface AuthChoice {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri?: string;
  readonly scopes: readonly string[];
  readonly resource?: string;
}

export type Command =
  | { readonly command: 'help' }
  | {
      readonly command: 'serve';
      readonly module: string;
      readonly transport: TransportChoice;
      readonly host: string;
      readonly allowHosts: readonly string[];
      /** Present only when --auth-issuer is given. */
      readonly auth?: AuthChoice;
      /** Present (true) only with --allow-unauthenticated. */
      readonly allowUnauthenticated?: true;
    };

function portOf(flag: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new UsageError(`${flag} needs a port from 0 to 65535, got ${JSON.stringify(value)}`);
  return Number(value);
}

export function parseCommandLine(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        stdio: { type: 'boolean' },
        http: { type: 'string' },
        ws: { type: 'string' },
        host: { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        'auth-issuer': { type: 'string' },
        'auth-audience': { type: 'string' },
        'auth-jwks': { type: 'string' },
        'auth-scopes': { type: 'string' },
        'auth-resource': { type: 'string' },
        'allow-unauthenticated': { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true || positionals.length === 0) return { command: 'help' };
  const [command, module, ...extra] = positionals;
  if (command !== 'serve') throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  if (module === undefined) throw new UsageError('serve needs the module that exports the server');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
  const chosen = [values.stdio === true, values.http !== undefined, values.ws !== undefined].filter(Boolean).length;
  if (chosen > 1) throw new UsageError('choose one transport: --stdio, --http PORT or --ws PORT');
  const transport: TransportChoice =
    values.http !== undefined
      ? { kind: 'http', port: portOf('--http', values.http) }
      : values.ws !== undefined
        ? { kind: 'ws', port: portOf('--ws', values.ws) }
        : { kind: 'stdio' };
  if (transport.kind === 'stdio' && (values.host !== undefined || values['allow-host'] !== undefined)) {
    throw new UsageError('--host and --allow-host apply to --http and --ws only');
  }
  const auth = authChoice(values);
  if (transport.kind === 'stdio' && (auth !== undefined || values['allow-unauthenticated'] === true)) {
    throw new UsageError('--auth-* and --allow-unauthenticated apply to --http and --ws only (stdio takes its credentials from the environment)');
  }
  if (auth !== undefined && values['allow-unauthenticated'] === true) throw new UsageError('choose --auth-issuer or --allow-unauthenticated, not both');
  return {
    command: 'serve',
    module,
    transport,
    host: values.host ?? '127.0.0.1',
    allowHosts: values['allow-host'] ?? [],
    ...(auth === undefined ? {} : { auth }),
    ...(values['allow-unauthenticated'] === true ? { allowUnauthenticated: true as const } : {}),
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function authChoice(values: Record<string, string | boolean | string[] | undefined>): AuthChoice | undefined {
  const issuer = values['auth-issuer'] as string | undefined;
  const audience = values['auth-audience'] as string | undefined;
  const others = ['auth-audience', 'auth-jwks', 'auth-scopes', 'auth-resource'].filter((flag) => values[flag] !== undefined);
  if (issuer === undefined) {
    if (others.length > 0) throw new UsageError(`--${others[0]} needs --auth-issuer`);
    return undefined;
  }
  if (audience === undefined || audience === '') throw new UsageError('--auth-issuer needs --auth-audience (the audience your tokens are issued for)');
  for (const flag of ['auth-issuer', 'auth-jwks', 'auth-resource']) {
    const value = values[flag] as string | undefined;
    if (value !== undefined && !isHttpUrl(value)) throw new UsageError(`--${flag} needs an http(s) URL, got ${JSON.stringify(value)}`);
  }
  const rawScopes = values['auth-scopes'] as string | undefined;
  const scopes = rawScopes === undefined ? [] : rawScopes.split(',').map((scope) => scope.trim()).filter((scope) => scope.length > 0);
  const resource = (values['auth-resource'] as string | undefined) ?? (isHttpUrl(audience) ? audience : undefined);
  const jwksUri = values['auth-jwks'] as string | undefined;
  return { issuer, audience, scopes, ...(jwksUri === undefined ? {} : { jwksUri }), ...(resource === undefined ? {} : { resource }) };
}
