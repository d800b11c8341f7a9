/**
 * The demo CLI's arguments. Only stdio exists today; `--stdio` is accepted
 * (and is the default) so a later HTTP switch can sit beside it.
 */
export type DemoCommand = { readonly kind: 'serve'; readonly transport: 'stdio' } | { readonly kind: 'help' };

export const USAGE = `usage: node dist/examples/demo/main.js [--stdio] [--help]

  --stdio   serve MCP over stdin/stdout (the default)
  --help    show this text

Environment: LOG_LEVEL (pino level for the stderr log; default info).`;

export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseDemoArgs(argv: readonly string[]): DemoCommand {
  let command: DemoCommand = { kind: 'serve', transport: 'stdio' };
  for (const arg of argv) {
    if (arg === '--stdio') continue;
    if (arg === '--help' || arg === '-h') command = { kind: 'help' };
    else throw new UsageError(`unknown argument: ${arg}`);
  }
  return command;
}
