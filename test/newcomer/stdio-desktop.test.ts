/**
 * Issue 21.3: the desktop-client story. The `mcpServers` entries of docs/cli.md
 * work from any working directory; what the README says to run for stdio
 * puts nothing but JSON-RPC on stdout; console.log in a handler cannot
 * corrupt the wire (it goes to stderr while serveStdio owns stdout, and is
 * put back after); stdin ending lets the calls in flight answer, within
 * `drainMs`. Child processes are spawned exactly as the README says and end
 * on their own (stdin closed), bounded by a timeout.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { map, timer } from 'rxjs';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError, createServer, Registry } from '../../lib/index.js';
import { serveStdio } from '../../transports/index.js';
import { REPO_ROOT } from '../helpers/tsc.js';
import { settle } from '../contract/helpers.js';

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const CLI_GUIDE = readFileSync(join(REPO_ROOT, 'docs/cli.md'), 'utf8');
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const elsewhere = mkdtempSync(join(tmpdir(), 'rxmcp-desktop-'));
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }));

const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'desktop', version: '1' } } };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };
const rpc = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const lines = (...messages: unknown[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join('');

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command args` in `cwd` with `input` on stdin (then closed), as a desktop client starts a server. */
function runChild(command: string, args: readonly string[], cwd: string, input: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(command, args, { cwd, timeout: 20_000, env: { ...process.env, NODE_ENV: 'production' } }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}

/** Every stdout line is one JSON-RPC message; returns them. */
function wireOnly(stdout: string): Record<string, unknown>[] {
  const out = stdout.split('\n').filter((line) => line !== '');
  return out.map((line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`a stdout line that is not JSON-RPC: ${JSON.stringify(line)}`);
    }
    expect(message.jsonrpc, line).toBe('2.0');
    return message;
  });
}

/** The ```json blocks under a heading of docs/cli.md, parsed. */
function jsonBlocks(heading: string): Array<{ mcpServers: Record<string, { command: string; args: string[] }> }> {
  const start = CLI_GUIDE.indexOf(`## ${heading}\n`);
  if (start < 0) throw new Error(`docs/cli.md has no "${heading}"`);
  const end = CLI_GUIDE.indexOf('\n## ', start + 3);
  const section = CLI_GUIDE.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
}

describe("the guide's desktop-client entries, from a working directory that is not the project", () => {
  const [demoEntry, ownEntry] = jsonBlocks('Desktop clients (Claude Desktop, Cursor, VS Code)');
  const placeholders: ReadonlyArray<readonly [string, string]> = [
    ['/absolute/path/to/node', process.execPath],
    ['/absolute/path/to/my-app/node_modules/rxmcp', REPO_ROOT.replace(/\/$/, '')],
    ['/absolute/path/to/my-app/dist/server.js', fixture('console-server.mjs')],
    ['/absolute/path/to/rxmcp', REPO_ROOT.replace(/\/$/, '')],
  ];
  const fill = (value: string) => placeholders.reduce((text, [from, to]) => text.split(from).join(to), value);

  test('the demo entry: absolute node and main.js --stdio; it answers, and stdout is JSON-RPC only', async () => {
    const entry = demoEntry!.mcpServers['rxmcp-demo']!;
    expect(entry.command).toBe('/absolute/path/to/node');
    const ran = await runChild(fill(entry.command), entry.args.map(fill), elsewhere, lines(INITIALIZE, INITIALIZED, rpc(1, 'tools/list'), rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })));
    const wire = wireOnly(ran.stdout);
    expect(wire.map((m) => m.id)).toEqual([0, 1, 2]);
    expect(wire[2]).toMatchObject({ result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(ran.code).toBe(0);
  });

  test("your own server's entry: the installed CLI serving an absolute module; a handler's console.log goes to stderr", async () => {
    const entry = ownEntry!.mcpServers['my-server']!;
    const ran = await runChild(fill(entry.command), entry.args.map(fill), elsewhere, lines(INITIALIZE, INITIALIZED, rpc(1, 'tools/call', { name: 'chatty' })));
    const wire = wireOnly(ran.stdout);
    expect(wire.map((m) => m.id)).toEqual([0, 1]);
    expect(wire[1]).toMatchObject({ result: { content: [{ type: 'text', text: 'said' }] } });
    for (const said of ['log from handler', 'info from handler', 'debug from handler', "dir: 'from handler'", 'group from handler', 'count from handler: 1']) {
      expect(ran.stderr).toContain(said);
    }
    expect(ran.code).toBe(0);
  });
});

test('what the Quick start says to run for stdio puts nothing but JSON-RPC on stdout', async () => {
  const quickStart = README.slice(README.indexOf('## Quick start'), README.indexOf('\n## ', README.indexOf('## Quick start') + 3));
  const command = quickStart.split('\n').find((line) => line.includes('--stdio') && !line.includes('`'));
  expect(command).toBe('node dist/examples/demo/main.js --stdio   # stdout carries JSON-RPC only; logs go to stderr');
  const [program, ...args] = command!.replace(/#.*$/, '').trim().split(/\s+/);
  expect(program).toBe('node');
  const ran = await runChild(process.execPath, args, REPO_ROOT, lines(INITIALIZE, INITIALIZED, rpc(1, 'tools/list'), rpc(2, 'tools/call', { name: 'fail' }), 'not json'));
  const wire = wireOnly(ran.stdout);
  expect(wire.map((m) => m.id)).toEqual([0, 1, 2, null]);
  expect(ran.stderr).not.toBe('');
  expect(ran.code).toBe(0);
});

test('the console is put back when serveStdio stops: its next line goes to stdout', async () => {
  const ran = await runChild(process.execPath, [fixture('console-restored.mjs')], elsewhere, lines(INITIALIZE, rpc(1, 'tools/call', { name: 'chatty' })));
  const out = ran.stdout.split('\n').filter((line) => line !== '');
  expect(out.at(-1)).toBe('after close: stdout again');
  wireOnly(out.slice(0, -1).join('\n'));
  expect(ran.stderr).toContain('while serving');
  expect(ran.stderr).toContain('log from handler');
});

describe('stdin ending', () => {
  function pipe(server: ReturnType<typeof createServer>, options: Parameters<typeof serveStdio>[1] = {}) {
    const input = new PassThrough();
    const output = new PassThrough();
    const written: Record<string, unknown>[] = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const part of parts) written.push(JSON.parse(part) as Record<string, unknown>);
    });
    const handle = serveStdio(server, { input, output, ...options });
    let closed = false;
    void handle.closed.then(() => (closed = true));
    return { input, written, handle, isClosed: () => closed };
  }

  function slowServer(scheduler: VirtualTimeScheduler) {
    const registry = new Registry().registerTool({ name: 'slow', handler: ({ ms }) => timer(Number(ms), scheduler).pipe(map(() => `waited ${String(ms)}`)) });
    return createServer({ registry, scheduler });
  }

  test('a call in flight answers after the end, then the connection closes at once, before drainMs', async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = slowServer(scheduler);
    const w = pipe(server);
    w.input.end(lines(INITIALIZE, rpc(1, 'tools/call', { name: 'slow', arguments: { ms: 400 } })));
    await settle();
    expect(w.isClosed()).toBe(false);
    scheduler.maxFrames = 400;
    scheduler.flush();
    await w.handle.closed;
    expect(w.written.map((m) => m.id)).toEqual([0, 1]);
    expect(w.written[1]).toMatchObject({ result: { content: [{ type: 'text', text: 'waited 400' }] } });
    expect(server.stats()).toMatchObject({ connections: 0, inFlight: 0 });
    expect(scheduler.actions).toHaveLength(0);
  });

  test('past drainMs what still runs is dropped unanswered; drainMs: 0 drops it at once', async () => {
    const scheduler = new VirtualTimeScheduler();
    const w = pipe(slowServer(scheduler), { drainMs: 300 });
    w.input.end(lines(INITIALIZE, rpc(1, 'tools/call', { name: 'slow', arguments: { ms: 400 } })));
    await settle();
    scheduler.flush();
    await w.handle.closed;
    expect(w.written.map((m) => m.id)).toEqual([0]);

    const now = pipe(slowServer(new VirtualTimeScheduler()), { drainMs: 0 });
    now.input.end(lines(INITIALIZE, rpc(1, 'tools/call', { name: 'slow', arguments: { ms: 400 } })));
    await now.handle.closed;
    expect(now.written.map((m) => m.id)).toEqual([0]);
  });

  test('a request the client cancelled before the end is not waited for', async () => {
    const scheduler = new VirtualTimeScheduler();
    const w = pipe(slowServer(scheduler));
    w.input.end(lines(INITIALIZE, rpc(1, 'tools/call', { name: 'slow', arguments: { ms: 400 } }), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }));
    await w.handle.closed;
    expect(w.written.map((m) => m.id)).toEqual([0]);
  });

  test('drainMs and consoleToStderr are checked', () => {
    const server = createServer();
    for (const drainMs of [-1, 1.5, '10']) {
      expect(() => serveStdio(server, { input: new PassThrough(), output: new PassThrough(), drainMs: drainMs as number })).toThrow(ConfigError);
    }
    expect(() => serveStdio(server, { input: new PassThrough(), output: new PassThrough(), consoleToStderr: 'yes' as never })).toThrow(ConfigError);
  });
});
