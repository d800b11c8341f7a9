/**
 * The rxmcp CLI as a user runs it: `node dist/examples/cli/rxmcp.js ...`
 * (so `npm run build` must have run; `npm test` does). Each test spawns its
 * own process, talks to it over the chosen transport and ends it by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { INITIALIZE, closeAll, closeEvent, inbox, openClient } from './helpers.js';

const BIN = fileURLToPath(new URL('../../dist/examples/cli/rxmcp.js', import.meta.url));
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

interface Cli {
  readonly child: ChildProcess;
  readonly logs: Record<string, unknown>[];
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first log line `matches` accepts, waiting (bounded) for it. */
  log(matches: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
}

const running: ChildProcess[] = [];

function cli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NODE_ENV: 'production', RXMCP_LOG_LEVEL: 'info', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.push(child);
  let stdout = '';
  let stderr = '';
  const logs: Record<string, unknown>[] = [];
  const watchers = new Set<() => void>();
  child.stdout!.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
    logs.length = 0;
    for (const line of stderr.split('\n')) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not a log line (usage text)
      }
    }
    watchers.forEach((wake) => wake());
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const log = (matches: (line: Record<string, unknown>) => boolean, timeoutMs = 5000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = logs.find(matches);
        if (found === undefined) return;
        done();
        resolve(found);
      };
      const timeout = setTimeout(() => {
        done();
        reject(new Error(`no such log line within ${timeoutMs} ms; stderr:\n${stderr}`));
      }, timeoutMs);
      const onExit = () => {
        done();
        reject(new Error(`the CLI exited first; stderr:\n${stderr}`));
      };
      const done = () => {
        clearTimeout(timeout);
        watchers.delete(check);
        child.off('exit', onExit);
      };
      watchers.add(check);
      child.once('exit', onExit);
      check();
    });
  return { child, logs, stdout: () => stdout, stderr: () => stderr, exited, log };
}

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first (npm test does)`);
});

afterEach(async () => {
  await closeAll();
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  }
});

test('--help prints the usage and exits 0', async () => {
  const run = cli(['--help']);
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(run.stdout()).toContain('rxmcp serve <module> [--stdio | --http PORT | --ws PORT]');
});

test('a bad command line prints why and the usage on stderr and exits 2', async () => {
  const run = cli(['serve', fixture('cli-server.mjs'), '--ws', '1', '--stdio']);
  expect(await run.exited).toEqual({ code: 2, signal: null });
  expect(run.stderr()).toContain('choose one transport');
  expect(run.stderr()).toContain('Usage:');
  expect(run.stdout()).toBe('');
});

test('--ws serves the module, answers a tool call, and exits 0 on SIGTERM closing its sockets', async () => {
  const run = cli(['serve', fixture('cli-server.mjs'), '--ws', '0']);
  const listening = await run.log((line) => line.msg === 'listening');
  const url = String(listening.url);
  expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
  const socket = await openClient(url);
  const messages = inbox(socket);
  socket.send(JSON.stringify(INITIALIZE));
  expect(await messages.next()).toMatchObject({ id: 'init', result: { serverInfo: { name: 'rxmcp' } } });
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }));
  expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'echo: hi' }] } });
  const closed = closeEvent(socket);
  process.kill(run.child.pid!, 'SIGTERM');
  expect((await closed).code).toBe(1001);
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(run.logs.some((line) => line.msg === 'shutting down' && line.why === 'SIGTERM')).toBe(true);
  expect(run.stdout()).toBe('');
});

test('--http serves the module to the SDK streamable HTTP client and exits 0 on SIGINT', async () => {
  const run = cli(['serve', fixture('cli-server.mjs'), '--http', '0']);
  const listening = await run.log((line) => line.msg === 'listening');
  const url = String(listening.url);
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  const client = new Client({ name: 'cli-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  expect(await client.callTool({ name: 'echo', arguments: { text: 'over http' } })).toEqual({
    content: [{ type: 'text', text: 'echo: over http' }],
  });
  await client.close();
  process.kill(run.child.pid!, 'SIGINT');
  expect(await run.exited).toEqual({ code: 0, signal: null });
  expect(run.logs.some((line) => line.msg === 'shutting down' && line.why === 'SIGINT')).toBe(true);
});

test('--http refuses, exit 1, a module without authorization in production', async () => {
  const run = cli(['serve', fixture('cli-unguarded.mjs'), '--http', '0']);
  expect(await run.exited).toEqual({ code: 1, signal: null });
  expect(run.stderr()).toContain('without authorization');
});

test('--ws refuses, exit 1, a module without authorization in production', async () => {
  const run = cli(['serve', fixture('cli-unguarded.mjs'), '--ws', '0']);
  expect(await run.exited).toEqual({ code: 1, signal: null });
  expect(run.stderr()).toContain('without authorization');
});

test('a module that exports no server is refused, exit 1', async () => {
  const run = cli(['serve', fixture('cli-not-a-server.mjs')]);
  expect(await run.exited).toEqual({ code: 1, signal: null });
  expect(run.stderr()).toContain('not an McpServer');
});

test('--stdio works with the official SDK StdioClientTransport', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', fixture('cli-unguarded.mjs'), '--stdio'],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  const client = new Client({ name: 'cli-stdio-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('rxmcp');
    expect((await client.listTools()).tools).toEqual([]);
  } catch (error) {
    throw new Error(`${(error as Error).message}; the CLI's stderr:\n${stderr}`);
  } finally {
    await client.close();
  }
});

/** The official SDK client over the CLI's stdio, with the CLI's stderr kept. */
async function stdioClient(module: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'serve', module, '--stdio'],
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += String(chunk)));
  /** The first stderr line containing `text`, as it arrives (bounded). */
  const line = (text: string, timeoutMs = 5000) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const found = stderr.split('\n').find((l) => l.includes(text));
        if (found === undefined) return;
        clearTimeout(timeout);
        transport.stderr?.off('data', check);
        resolve(found);
      };
      const timeout = setTimeout(() => {
        transport.stderr?.off('data', check);
        reject(new Error(`no stderr line with ${JSON.stringify(text)} within ${timeoutMs} ms; stderr:\n${stderr}`));
      }, timeoutMs);
      transport.stderr?.on('data', check);
      check();
    });
  const client = new Client({ name: 'cli-stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, line };
}

test("serverInfo defaults to the served module's nearest package.json; names given in the options win", async () => {
  const weather = await stdioClient(fixture('weather/server.mjs'));
  try {
    expect(weather.client.getServerVersion()).toMatchObject({ name: 'weather-server', version: '2.3.4' });
  } finally {
    await weather.client.close();
  }
  const named = await stdioClient(fixture('weather/named.mjs'));
  try {
    expect(named.client.getServerVersion()).toMatchObject({ name: 'explicit-name', version: '9.9.9' });
  } finally {
    await named.client.close();
  }
});

test('RXMCP_LOG_LEVEL=debug: a crashing tool answers callback_crashed and its stack is on the CLI stderr', async () => {
  const { client, line } = await stdioClient(fixture('weather/server.mjs'), { RXMCP_LOG_LEVEL: 'debug' });
  try {
    const result = await client.callTool({ name: 'forecast', arguments: {} });
    expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Error: callback_crashed' }] });
    const crash = JSON.parse(await line('MCP callback crashed')) as Record<string, any>;
    expect(crash).toMatchObject({ level: 50, method: 'tools/call', tool: 'forecast', connId: 'default', reason: 'callback_crashed' });
    expect(crash!.err.stack).toContain('the weather service is down');
  } finally {
    await client.close();
  }
});

test('--stdio answers on stdout, logs on stderr, and exits 0 when stdin ends', async () => {
  const run = cli(['serve', fixture('cli-server.mjs'), '--stdio']);
  await run.log((line) => line.msg === 'serving on stdio');
  const nextReply = () => new Promise<string>((resolve) => run.child.stdout!.once('data', (chunk) => resolve(String(chunk))));
  // stdio answers nothing but ping before initialize.
  run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {} } })}\n`);
  expect(JSON.parse(await nextReply())).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
  run.child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'pipe' } } })}\n`);
  const reply = await nextReply();
  expect(JSON.parse(reply)).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'echo: pipe' }] } });
  run.child.stdin!.end();
  expect(await run.exited).toEqual({ code: 0, signal: null });
});

test('--stdio exits 0 on SIGINT', async () => {
  const run = cli(['serve', fixture('cli-server.mjs')]);
  await run.log((line) => line.msg === 'serving on stdio');
  process.kill(run.child.pid!, 'SIGINT');
  expect(await run.exited).toEqual({ code: 0, signal: null });
});
