/**
 * What the CLI prints when it cannot serve: one readable line on stderr,
 * `rxmcp: <what went wrong>` plus what to do about it, not a JSON log line
 * with a stack (a person reads this, at a terminal or in a desktop client's
 * log). The stack follows only when RXMCP_LOG_LEVEL is debug or trace.
 */

/** Node's error codes for a module that cannot be loaded, with the CLI's advice for each. */
const ADVICE: Readonly<Record<string, (error: Error, cwd: string) => string>> = {
  ERR_UNKNOWN_FILE_EXTENSION: () =>
    'rxmcp serves JavaScript: compile the module first (tsc) and serve its .js, or start node with a TypeScript loader (node --import tsx .../rxmcp.js serve ./server.ts)',
  ERR_MODULE_NOT_FOUND: (_error, cwd) =>
    `a relative path is resolved from the working directory (${cwd}); a desktop client starts rxmcp elsewhere, so give it an absolute path`,
};

/** The library's own words for an option the CLI sets with a flag. */
function flagAdvice(error: unknown): string | undefined {
  const option = (error as { option?: unknown } | null)?.option;
  return option === 'authenticator' ? 'on the command line: --auth-issuer ISS --auth-audience AUD, or --allow-unauthenticated' : undefined;
}

export function describeFatal(error: unknown, options: { readonly verbose: boolean; readonly cwd: string }): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const advice = flagAdvice(error) ?? (error instanceof Error && typeof code === 'string' ? ADVICE[code]?.(error, options.cwd) : undefined);
  const lines = [`rxmcp: ${message}`];
  if (advice !== undefined) lines.push(`rxmcp: ${advice}`);
  if (options.verbose && error instanceof Error && error.stack !== undefined) lines.push(error.stack);
  else lines.push('rxmcp: (RXMCP_LOG_LEVEL=debug shows the stack)');
  return `${lines.join('\n')}\n`;
}

export function verboseLevel(level: string | undefined): boolean {
  return level === 'debug' || level === 'trace';
}
