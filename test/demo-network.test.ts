/**
 * The demo as `npm start` runs it: one process serving Streamable HTTP,
 * legacy SSE and WebSocket on one port, with the boot guard really on
 * (NODE_ENV=production). Needs the build (`npm test` builds first).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import WebSocket from 'ws';
import { INSPECTOR } from '../examples/demo/inspector.js';

const MAIN = fileURLToPath(new URL('../dist/examples/demo/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

let child: ChildProcess;
let stderr = '';
let urls: { mcp: string; sse: string; ws: string };

beforeAll(async () => {
  child = spawn(process.execPath, [MAIN, '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' },
  });
  urls = await new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`demo exited early (${code}): ${stderr}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const mcp = /Streamable HTTP\s+(\S+)/.exec(stderr)?.[1];
      const sse = /Legacy HTTP\+SSE\s+(\S+)/.exec(stderr)?.[1];
      const ws = /WebSocket\s+(\S+)/.exec(stderr)?.[1];
      if (mcp && sse && ws && stderr.includes('Stop it')) resolve({ mcp, sse, ws });
    });
  });
});

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('npm start (the network demo)', () => {
  test('prints the three URLs on 127.0.0.1 and an Inspector command', () => {
    expect(urls.mcp).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(urls.sse).toBe(urls.mcp.replace(/\/mcp$/, '/sse'));
    expect(urls.ws).toBe(urls.mcp.replace(/^http/, 'ws').replace(/\/mcp$/, '/ws'));
    expect(stderr).toContain(`npx ${INSPECTOR} --cli ${urls.mcp} --transport http --method tools/list`);
  });

  test('Streamable HTTP with the official client', async () => {
    const client = new Client({ name: 'demo-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(urls.mcp)));
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'add', 'slow_task', 'fail', 'reject_input', 'delete_note', 'notes_board']);
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    await client.close();
  });

  test('legacy SSE with the official client', async () => {
    const client = new Client({ name: 'demo-test', version: '1' });
    await client.connect(new SSEClientTransport(new URL(urls.sse)));
    expect(await client.callTool({ name: 'echo', arguments: { text: 'over sse' } })).toMatchObject({
      content: [{ type: 'text', text: 'over sse' }],
    });
    await client.close();
  });

  test('WebSocket on /ws, subprotocol mcp', async () => {
    const socket = new WebSocket(urls.ws, 'mcp');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    expect(socket.protocol).toBe('mcp');
    const reply = new Promise<Record<string, unknown>>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(await reply).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    socket.close();
  });

  test('SIGTERM stops it with exit code 0', async () => {
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });
});
