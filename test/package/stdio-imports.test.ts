/**
 * Issue 22: a stdio server does not load what only other transports or
 * authenticators use. A child process imports the package by its name
 * (`rxmcp`, `rxmcp/transports`: package.json's entry points, as a user
 * does), serves one stdio connection on in-memory streams and answers an
 * initialize and a tools/call, while a module hook records every module the
 * ESM loader resolves; `require.cache` adds what was required as CommonJS.
 * `ws` (loaded by serveWebSocket when it is called) and `jose` (by
 * jwtBearer on its first token) must be absent from both. The control run
 * calls serveWebSocket too, so a tracker that sees nothing fails it.
 *
 * A behaviour assertion, not a size: what the modules cost in RSS is
 * measured under bench/ (docs/benchmarks.md, "Memory of a stdio server").
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/tsc.js';

const run = promisify(execFile);

// Runs on the loader's own thread: appends each resolved URL to the file it is given, before the import goes on.
const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

// The child: a stdio server as a user writes one, a round trip on it, then (with --ws) serveWebSocket as the control.
const CHILD = `
import { createRequire, register } from 'node:module';
import { PassThrough } from 'node:stream';
import { appendFileSync } from 'node:fs';
const log = process.env.IMPORT_LOG;
register('data:text/javascript,' + encodeURIComponent(process.env.IMPORT_HOOKS), import.meta.url, { data: { log } });
const { allowAll, createServer, Registry } = await import('rxmcp');
const { serveStdio, serveWebSocket } = await import('rxmcp/transports');
const registry = new Registry().registerTool({
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  handler: ({ text }) => String(text),
});
const server = createServer({ name: 'imports', registry, authorizer: allowAll(), authorizerSource: 'configured', readAuthorizer: allowAll() });
const input = new PassThrough();
const output = new PassThrough();
const handle = serveStdio(server, { input, output, consoleToStderr: false });
const answered = new Promise((resolve) => {
  let text = '';
  output.on('data', (chunk) => {
    text += chunk;
    if (text.includes('"id":2')) resolve(text);
  });
});
const send = (message) => input.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\\n');
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
send({ method: 'notifications/initialized' });
send({ id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } });
const reply = await answered;
if (!reply.includes('hi')) throw new Error('no echo: ' + reply);
if (process.argv.includes('--ws')) await (await serveWebSocket(server, { port: 0, host: '127.0.0.1' })).close();
handle.close();
await handle.closed;
for (const path of Object.keys(createRequire(import.meta.url).cache)) appendFileSync(log, path + '\\n');
`;

let dir: string;

/** Every module the child loaded (URLs and paths, one per line), after its round trip. */
async function loadedBy(...args: string[]): Promise<string[]> {
  const log = join(dir, `modules-${args.join('') || 'stdio'}.txt`);
  await run(process.execPath, ['--input-type=module', '-e', CHILD, '--', ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, IMPORT_LOG: log, IMPORT_HOOKS: HOOKS, RXMCP_LOG_LEVEL: 'silent' },
  });
  return readFileSync(log, 'utf8').split('\n').filter((line) => line !== '');
}

/** Whether any loaded module is inside node_modules/<name>/. */
function includesPackage(modules: readonly string[], name: string): boolean {
  return modules.some((module) => module.includes(`/node_modules/${name}/`));
}

beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'lib', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  dir = mkdtempSync(join(tmpdir(), 'rxmcp-imports-'));
  return () => rmSync(dir, { recursive: true, force: true });
});

describe('a stdio server through the package entry points', () => {
  test('loads neither ws nor jose', async () => {
    const modules = await loadedBy();
    expect(modules.some((module) => module.endsWith('/dist/bundle/transports/index.js')), 'the tracker saw the entry point').toBe(true);
    expect(includesPackage(modules, 'rxjs'), 'the tracker saw rxjs').toBe(true);
    expect(includesPackage(modules, 'ws')).toBe(false);
    expect(includesPackage(modules, 'jose')).toBe(false);
  });

  test('control: serveWebSocket, once called, loads ws', async () => {
    expect(includesPackage(await loadedBy('--ws'), 'ws')).toBe(true);
  });
});
