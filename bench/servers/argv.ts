/**
 * The bench servers' command line: `--transport stdio|http|ws` (default
 * stdio), `--port N` (default 0, a free port), `--max-in-flight N`, plus
 * boolean flags. Network servers announce readiness with ONE stdout line,
 * `READY <url>`, which the driver waits for; stdio servers say nothing
 * (stdout is their wire) and are ready when they answer initialize.
 */
export type BenchTransport = 'stdio' | 'http' | 'ws';

export interface ServerArgs {
  readonly transport: BenchTransport;
  readonly port: number;
  readonly maxInFlight: number | undefined;
  readonly flags: ReadonlySet<string>;
}

const TRANSPORTS: readonly BenchTransport[] = ['stdio', 'http', 'ws'];

function valueAfter(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(name);
  return at === -1 ? undefined : argv[at + 1];
}

function integerAfter(argv: readonly string[], name: string): number | undefined {
  const raw = valueAfter(argv, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} needs a non-negative integer, got ${raw}`);
  return value;
}

export function parseServerArgs(argv: readonly string[], supported: readonly BenchTransport[] = TRANSPORTS): ServerArgs {
  const transport = (valueAfter(argv, '--transport') ?? 'stdio') as BenchTransport;
  if (!supported.includes(transport)) throw new Error(`--transport must be one of ${supported.join(', ')}, got ${transport}`);
  return {
    transport,
    port: integerAfter(argv, '--port') ?? 0,
    maxInFlight: integerAfter(argv, '--max-in-flight'),
    flags: new Set(argv.filter((a) => a.startsWith('--'))),
  };
}

export function announceReady(url: string): void {
  process.stdout.write(`READY ${url}\n`);
}

/** A spawned server ends when the driver goes: at once, nothing it holds is worth a graceful close. */
export function exitOnSignals(): void {
  const stop = () => process.exit(0);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
