/**
 * A failure nobody can see is a bug: with no logger given, a crash is a JSON
 * line on stderr (never stdout) with the method, the tool or URI, the
 * connection, the request id and the stack; the same without the stack is a
 * callback_failed event; a tool returning undefined is warned about once;
 * an authorizer that throws is logged. The child-process tests import dist/
 * (npm test builds it first).
 */
import { spawn } from 'node:child_process';
import { describe, expect, test, vi } from 'vitest';
import { Registry, type Logger, type ServerEvent } from '../../lib/index.js';
import { logLevelFromEnvironment } from '../../lib/logger.js';
import { makeServer, rpc } from '../contract/helpers.js';

const LIB = new URL('../../dist/lib/index.js', import.meta.url).href;

/** Runs an ES module script in a fresh node with the given RXMCP_LOG_LEVEL (undefined: unset). */
function runScript(script: string, level: string | undefined): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.RXMCP_LOG_LEVEL;
  if (level !== undefined) env.RXMCP_LOG_LEVEL = level;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const timeout = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timeout);
      resolve({ code, stdout, stderr });
    });
  });
}

const CRASHING_SCRIPT = `
import { createServer, Registry } from ${JSON.stringify(LIB)};
const registry = new Registry()
  .registerTool({ name: 'crash', handler: () => { throw new Error('disk on fire'); } })
  .registerTool({ name: 'forgot', handler: async () => {} })
  .registerTool({ name: 'forgot_too', handler: () => undefined });
const server = createServer({ registry });
const replies = [];
replies.push(await server.handleMessage({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'crash' } }, { connId: 'conn-a' }));
for (const id of [1, 2, 3]) replies.push(await server.handleMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'forgot' } }));
replies.push(await server.handleMessage({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'forgot_too' } }));
process.exitCode = replies.every((r) => r !== null) ? 0 : 3;
`;

function logLines(stderr: string): Record<string, any>[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

describe('the default logger', () => {
  test('unset RXMCP_LOG_LEVEL: a crash is one error line on stderr with method, tool, connection, request id and stack; stdout stays empty', async () => {
    const run = await runScript(CRASHING_SCRIPT, undefined);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    const lines = logLines(run.stderr);
    const crash = lines.find((l) => l.level === 50);
    expect(crash).toMatchObject({
      name: 'rxmcp',
      method: 'tools/call',
      tool: 'crash',
      connId: 'conn-a',
      requestId: 41,
      reason: 'callback_crashed',
      err: { type: 'Error', message: 'disk on fire' },
    });
    expect(crash!.err.stack).toContain('disk on fire');
    expect(crash!.err.stack).toMatch(/\n\s+at /);
    // undefined from a tool: the same empty content on the wire, one warning per tool however often it is called.
    const warnings = lines.filter((l) => l.level === 40);
    expect(warnings.map((l) => l.tool)).toStrictEqual(['forgot', 'forgot_too']);
    expect(warnings[0]!.msg).toContain('returned undefined');
  });

  test('RXMCP_LOG_LEVEL=silent writes nothing; error keeps the crash and drops the warnings', async () => {
    expect((await runScript(CRASHING_SCRIPT, 'silent')).stderr).toBe('');
    const errorsOnly = logLines((await runScript(CRASHING_SCRIPT, 'error')).stderr);
    expect(errorsOnly.map((l) => l.level)).toStrictEqual([50]);
  });
});

test('RXMCP_LOG_LEVEL is read case-insensitively; a name pino does not know falls back to warn', () => {
  const saved = process.env.RXMCP_LOG_LEVEL;
  try {
    process.env.RXMCP_LOG_LEVEL = ' DEBUG ';
    expect(logLevelFromEnvironment()).toBe('debug');
    process.env.RXMCP_LOG_LEVEL = 'loud';
    expect(logLevelFromEnvironment()).toBe('warn');
    delete process.env.RXMCP_LOG_LEVEL;
    expect(logLevelFromEnvironment()).toBe('warn');
  } finally {
    if (saved === undefined) delete process.env.RXMCP_LOG_LEVEL;
    else process.env.RXMCP_LOG_LEVEL = saved;
  }
});

function recordingLogger() {
  const lines: { level: string; obj: any; msg: string | undefined }[] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => lines.push({ level, obj, msg });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}

describe('callback_failed on events$', () => {
  test('names the method, the tool, prompt or URI, the request id and the error, never its stack', async () => {
    const registry = new Registry()
      .registerTool({ name: 'crash', handler: async () => { throw new TypeError('bad input'); } })
      .registerResource({ uri: 'mem://broken', name: 'broken', read: () => { throw new Error('unreadable'); } })
      .registerPrompt({ name: 'p', get: () => { throw new RangeError('off the end'); } });
    const { logger, lines } = recordingLogger();
    const server = makeServer({ registry, logger });
    const events: ServerEvent[] = [];
    server.events$.subscribe((e) => events.push(e));
    await server.handleMessage(rpc('t', 'tools/call', { name: 'crash' }), { connId: 'c1' });
    await server.handleMessage(rpc('r', 'resources/read', { uri: 'mem://broken' }), { connId: 'c1' });
    await server.handleMessage(rpc('p', 'prompts/get', { name: 'p' }), { connId: 'c1' });
    const failed = events.filter((e) => e.type === 'callback_failed');
    expect(failed).toStrictEqual([
      { type: 'callback_failed', connId: 'c1', method: 'tools/call', name: 'crash', requestId: 't', reason: 'callback_crashed', error: { name: 'TypeError', message: 'bad input' } },
      { type: 'callback_failed', connId: 'c1', method: 'resources/read', name: 'mem://broken', requestId: 'r', reason: 'callback_crashed', error: { name: 'Error', message: 'unreadable' } },
      { type: 'callback_failed', connId: 'c1', method: 'prompts/get', name: 'p', requestId: 'p', reason: 'callback_crashed', error: { name: 'RangeError', message: 'off the end' } },
    ]);
    expect(JSON.stringify(failed)).not.toContain(' at ');
    expect(lines.filter((l) => l.level === 'error').map((l) => [l.obj.method, l.obj.tool ?? l.obj.uri ?? l.obj.prompt, l.obj.requestId, l.obj.err.stack.includes(' at ')])).toStrictEqual([
      ['tools/call', 'crash', 't', true],
      ['resources/read', 'mem://broken', 'r', true],
      ['prompts/get', 'p', 'p', true],
    ]);
  });

  test('a timeout is a warning, a busy refusal only a debug line (one per refused call would flood a loaded server)', async () => {
    const registry = new Registry().registerTool({ name: 'never', handler: () => new Promise(() => {}) });
    const { logger, lines } = recordingLogger();
    const server = makeServer({ registry, logger, maxInFlight: 1, callbackTimeoutMs: 1000 });
    const first = server.handleMessage(rpc(1, 'tools/call', { name: 'never' }));
    const busy = await server.handleMessage(rpc(2, 'tools/call', { name: 'never' }));
    expect(busy).toMatchObject({ result: { content: [{ text: 'Error: server_busy' }] } });
    server.virtual.flush();
    expect(await first).toMatchObject({ result: { content: [{ text: 'Error: callback_timeout' }] } });
    expect(lines.map((l) => [l.level, l.obj.reason, l.obj.requestId])).toStrictEqual([
      ['debug', 'server_busy', 2],
      ['warn', 'callback_timeout', 1],
    ]);
  });
});

describe('silent failures that are now said', () => {
  test('an async handler that forgets to return: empty content on the wire, one warning per tool', async () => {
    const registry = new Registry()
      .registerTool({ name: 'forgot', handler: async () => {} })
      .registerTool({ name: 'fine', handler: () => 'ok' });
    const { logger, lines } = recordingLogger();
    const server = makeServer({ registry, logger });
    for (const id of [1, 2]) {
      expect(await server.handleMessage(rpc(id, 'tools/call', { name: 'forgot' }))).toStrictEqual({ jsonrpc: '2.0', id, result: { content: [] } });
    }
    await server.handleMessage(rpc(3, 'tools/call', { name: 'fine' }));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', obj: { tool: 'forgot' } });
    // A second server warns on its own: the once is per server, not per process.
    const other = recordingLogger();
    await makeServer({ registry, logger: other.logger }).handleMessage(rpc(1, 'tools/call', { name: 'forgot' }));
    expect(other.lines).toHaveLength(1);
  });

  test('an authorizer that throws denies as before, and is logged with its stack', async () => {
    const registry = new Registry().registerTool({ name: 't', handler: () => 'ran' });
    const { logger, lines } = recordingLogger();
    const server = makeServer({ registry, logger, authorizer: () => { throw new Error('policy store down'); } });
    const reply = (await server.handleMessage(rpc(1, 'tools/call', { name: 't' }))) as any;
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0].text).toContain('authorizer_failed');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', obj: { method: 'tools/call', tool: 't', requestId: 1, reason: 'authorizer_failed' } });
    expect(lines[0]!.obj.err.message).toBe('policy store down');
  });

  test('a crash logged through a custom logger is not also written elsewhere', async () => {
    const registry = new Registry().registerTool({ name: 'crash', handler: () => { throw new Error('x'); } });
    const { logger, lines } = recordingLogger();
    const out = vi.spyOn(process.stdout, 'write');
    await makeServer({ registry, logger }).handleMessage(rpc(1, 'tools/call', { name: 'crash' }));
    expect(lines).toHaveLength(1);
    expect(out).not.toHaveBeenCalled();
    out.mockRestore();
  });
});
