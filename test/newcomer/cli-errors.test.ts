/**
 * Issue 21.5: the CLI's errors are for a person: `rxmcp: <what>` and what to
 * do about it, as text on stderr, not a JSON log line with a stack (the
 * stack only with RXMCP_LOG_LEVEL=debug). Runs the built CLI as a user does.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const BIN = fileURLToPath(new URL('../../dist/examples/cli/rxmcp.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(name, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'rxmcp-cli-errors-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI with `args` and `input` on stdin; it ends by itself (stdin ends), bounded by a timeout. */
function rxmcp(args: readonly string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<Exit> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: scratch, timeout: 15_000, env: { ...process.env, RXMCP_LOG_LEVEL: 'info', ...options.env } },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
    child.stdin!.end(options.input ?? '');
  });
}

function expectReadable(exit: Exit): void {
  expect(exit.code).toBe(1);
  for (const line of exit.stderr.trim().split('\n')) {
    expect(line.startsWith('rxmcp: ')).toBe(true);
    expect(line.startsWith('{')).toBe(false);
  }
  expect(exit.stderr).not.toMatch(/^\s+at /m);
}

test('a .ts module: the error, and how to serve TypeScript', async () => {
  writeFileSync(join(scratch, 'server.ts'), 'export default 1;\n');
  const exit = await rxmcp(['serve', './server.ts']);
  expectReadable(exit);
  expect(exit.stderr).toContain('rxmcp: Unknown file extension ".ts"');
  expect(exit.stderr).toContain('rxmcp: rxmcp serves JavaScript: compile the module first (tsc) and serve its .js');
});

test('a module that is not there: the path, and that a relative one is resolved from the working directory', async () => {
  const exit = await rxmcp(['serve', './dist/nope.js']);
  expectReadable(exit);
  expect(exit.stderr).toContain('Cannot find module');
  expect(exit.stderr).toContain(`a relative path is resolved from the working directory (${scratch})`);
});

test('a module exporting no server: the message as text, the stack only at debug', async () => {
  const exit = await rxmcp(['serve', fixture('../ws/fixtures/cli-not-a-server.mjs')]);
  expectReadable(exit);
  expect(exit.stderr).toContain('the default export is not an McpServer nor a function returning one');
  expect(exit.stderr).toContain('rxmcp: (RXMCP_LOG_LEVEL=debug shows the stack)');
  const debug = await rxmcp(['serve', fixture('../ws/fixtures/cli-not-a-server.mjs')], { env: { RXMCP_LOG_LEVEL: 'debug' } });
  expect(debug.code).toBe(1);
  expect(debug.stderr).toMatch(/^\s+at /m);
});

test('`export default make()` (a Promise of the server) is served', async () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const exit = await rxmcp(['serve', fixture('./fixtures/promise-server.mjs')], { input: `${JSON.stringify(initialize)}\n` });
  expect(exit.code).toBe(0);
  expect(JSON.parse(exit.stdout.trim())).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
});
