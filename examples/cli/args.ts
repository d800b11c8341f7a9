/**
 * The rxmcp command line: `rxmcp serve <module> [--stdio | --http PORT |
 * --ws PORT] [--host H] [--allow-host NAME]...`, or `rxmcp --help`. Parsing
 * only; a bad command line is a UsageError whose message the CLI prints
 * above the usage text.
 */
import { parseArgs } from 'node:util';

export const USAGE = `Usage:
  rxmcp serve <module> [--stdio | --http PORT | --ws PORT] [--host HOST] [--allow-host NAME]...
  rxmcp --help

Serves the MCP server that <module> exports: its default export (or a
createServer export) is an McpServer, or a function returning one (sync or async).

Transports (one of them; --stdio is the default):
  --stdio            newline-delimited JSON-RPC on stdin/stdout
  --http PORT        Streamable HTTP (and legacy SSE) on PORT (0 picks a free port)
  --ws PORT          WebSocket, subprotocol "mcp", on PORT (0 picks a free port)

Options:
  --host HOST        interface to listen on (default 127.0.0.1)
  --allow-host NAME  also accept this Host header name (repeatable; loopback names
                     are always accepted, and --host when it names one host)
  -h, --help         print this text

Network transports refuse to start unless the server has a chosen authorizer and
a read authorizer, or NODE_ENV is development or test. Logs go to stderr.
`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export type TransportChoice =
  | { readonly kind: 'stdio' }
  | { readonly kind: 'http'; readonly port: number }
  | { readonly kind: 'ws'; readonly port: number };

export type Command =
  | { readonly command: 'help' }
  | {
      readonly command: 'serve';
      readonly module: string;
      readonly transport: TransportChoice;
      readonly host: string;
      readonly allowHosts: readonly string[];
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
  return {
    command: 'serve',
    module,
    transport,
    host: values.host ?? '127.0.0.1',
    allowHosts: values['allow-host'] ?? [],
  };
}
