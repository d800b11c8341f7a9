/**
 * Black box over a real process: the official SDK client's
 * StdioClientTransport spawns the BUILT demo (`dist/examples/demo/main.js`;
 * `npm test` builds first, run `npm run build` before running this file
 * alone) and drives tools, resources, prompts, completion and an elicitation
 * round trip both ways; then the child must be gone after `client.close()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { deleteNotePrompt } from '../examples/demo/server.js';
import { CRASH_HINT } from '../lib/crash-exposure.js';
import { INSPECTOR } from '../examples/demo/inspector.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = fileURLToPath(new URL('../dist/examples/demo/main.js', import.meta.url));

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of opened.splice(0)) await closable.close().catch(() => {});
});

interface Session {
  readonly client: Client;
  readonly transport: StdioClientTransport;
  readonly stderr: () => string;
  readonly elicitations: Array<Record<string, any>>;
  answer: (request: Record<string, any>) => ElicitResult;
}

async function startDemo(): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [MAIN, '--stdio'], cwd: ROOT, stderr: 'pipe', env: { LOG_LEVEL: 'info' } });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'stdio-e2e', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const session: Session = {
    client,
    transport,
    stderr: () => stderr,
    elicitations: [],
    answer: () => ({ action: 'cancel' }),
  };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    session.elicitations.push(request.params as Record<string, any>);
    return session.answer(request.params as Record<string, any>);
  });
  opened.push(client);
  await client.connect(transport);
  return session;
}

function denyText(detail: string): string {
  return JSON.stringify({ error: 'authorization_required', tool: 'delete_note', decision: 'ask', detail });
}

describe('the demo over stdio, with the official SDK client', () => {
  test('tools, errors, resources, prompts and completion', async () => {
    const { client } = await startDemo();
    expect(client.getServerVersion()).toMatchObject({ name: 'rxmcp-demo' });

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(['add', 'delete_note', 'echo', 'fail', 'notes_board', 'reject_input', 'slow_task']);
    expect(tools.tools.find((t) => t.name === 'delete_note')?.annotations).toEqual({ destructiveHint: true });

    expect(await client.callTool({ name: 'echo', arguments: { text: 'hello over stdio' } })).toEqual({
      content: [{ type: 'text', text: 'hello over stdio' }],
    });
    expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(await client.callTool({ name: 'slow_task', arguments: { ms: 0 } })).toEqual({ content: [{ type: 'text', text: 'Waited 0 ms' }] });
    expect(await client.callTool({ name: 'fail', arguments: {} })).toEqual({
      content: [{ type: 'text', text: `Error: callback_crashed (${CRASH_HINT})` }],
      isError: true,
    });
    expect(await client.callTool({ name: 'reject_input', arguments: { anything: 1 } })).toEqual({
      content: [{ type: 'text', text: 'reject_input rejects every input' }],
      isError: true,
    });

    const listed = await client.listResources();
    expect(listed.resources).toEqual([
      { uri: 'demo://notes', name: 'notes', description: 'All notes, as JSON.', mimeType: 'application/json' },
      {
        uri: 'ui://notes/board',
        name: 'notes_board',
        description: 'The notes board: lists the notes, deletes one after the user approves.',
        mimeType: 'text/html;profile=mcp-app',
        _meta: { ui: { prefersBorder: true } },
      },
    ]);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual(['demo://notes/{id}']);
    const all = await client.readResource({ uri: 'demo://notes' });
    expect(all.contents).toHaveLength(1);
    expect(all.contents[0]).toMatchObject({ uri: 'demo://notes', mimeType: 'application/json' });
    const notes = JSON.parse(String((all.contents[0] as { text: string }).text)) as Array<{ id: string; uri: string }>;
    expect(notes.map((n) => n.id)).toEqual(['1', '2', '3']);
    const one = await client.readResource({ uri: 'demo://notes/2' });
    expect(one.contents).toEqual([
      { uri: 'demo://notes/2', mimeType: 'text/plain', text: 'Only the connection that was asked may answer an elicitation.' },
    ]);

    const prompt = await client.getPrompt({ name: 'summarize', arguments: { topic: 'rxjs' } });
    expect(prompt.messages).toHaveLength(1);
    expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
    expect((prompt.messages[0]!.content as { text: string }).text).toMatch(/^Summarize what these notes say about rxjs, in at most three sentences:\n- \(1\) /);
    await expect(client.getPrompt({ name: 'summarize', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'topic', value: 'e' } });
    expect(completion.completion).toEqual({ values: ['elicitation'], total: 1, hasMore: false });
  });

  test('delete_note asks through elicitation: approved it runs, declined it is denied', async () => {
    const session = await startDemo();
    const { client } = session;

    session.answer = () => ({ action: 'accept', content: { approve: true } });
    expect(await client.callTool({ name: 'delete_note', arguments: { id: '1' } })).toEqual({
      content: [{ type: 'text', text: 'Deleted note 1' }],
    });
    expect(session.elicitations).toHaveLength(1);
    expect(session.elicitations[0]).toMatchObject({
      message: deleteNotePrompt('1'),
      requestedSchema: {
        type: 'object',
        properties: { approve: { type: 'boolean', description: 'Approve running the delete_note tool' } },
        required: ['approve'],
      },
    });

    session.answer = () => ({ action: 'decline' });
    expect(await client.callTool({ name: 'delete_note', arguments: { id: '2' } })).toEqual({
      content: [{ type: 'text', text: denyText('declined') }],
      isError: true,
    });
    expect(session.elicitations).toHaveLength(2);

    const all = await client.readResource({ uri: 'demo://notes' });
    const ids = (JSON.parse(String((all.contents[0] as { text: string }).text)) as Array<{ id: string }>).map((n) => n.id);
    expect(ids).toEqual(['2', '3']);
  });

  test('the child exits on its own when the client closes, a call left running dropped after drainMs (1 s): no orphan', async () => {
    const session = await startDemo();
    const pid = session.transport.pid;
    expect(pid).toBeTypeOf('number');
    expect(isAlive(pid!)).toBe(true);
    // A call left running must not keep the process alive either.
    const pending = session.client.callTool({ name: 'slow_task', arguments: { ms: 30_000 } }).catch((err: unknown) => err);
    await session.client.ping();
    const started = performance.now();
    await session.client.close();
    // The SDK closes stdin, then waits 2 s before SIGTERM: leaving earlier means stdin's end did it.
    expect(performance.now() - started).toBeLessThan(1900);
    expect(isAlive(pid!)).toBe(false);
    expect(session.stderr()).toContain('"reason":"input ended"');
    expect(session.stderr()).toContain(`npx ${INSPECTOR} node dist/examples/demo/main.js`);
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('the demo CLI as a plain process', () => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    // Only if a test failed with the child still running: never leave it behind.
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  function run(args: string[], stdin: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
      child.stdin.end(stdin);
    });
  }

  test('answers line by line on stdout only, and exits 0 when stdin ends', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    const result = await run(['--stdio'], `${initialize}\r\nnot json\n{"jsonrpc":"2.0","id":2,"method":"ping"}`);
    expect(result).toMatchObject({ code: 0, signal: null });
    const lines = result.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const replies = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(replies).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ protocolVersion: '2025-06-18' }) }),
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(result.stderr).toContain('rxmcp demo stopped');
  });

  test('SIGTERM closes the connection and exits 0', async () => {
    const child = spawn(process.execPath, [MAIN, '--stdio'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    const serving = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8');
        if (stderr.includes('rxmcp demo serving')) resolve();
      });
    });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
    await serving;
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(stderr).toContain('"reason":"SIGTERM"');
  });

  test('an unknown argument is a usage error (exit 2), nothing on stdout', async () => {
    const result = await run(['--bogus'], '');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain('unknown argument: --bogus');
  });
});
