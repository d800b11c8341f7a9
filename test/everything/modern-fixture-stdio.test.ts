/**
 * The fixture's 0.2.0-alpha.12 surface on the modern era (2026-07-28) over
 * stdio, as far as the core serves it today: listings with resultType, the
 * diagnostics of `server-stateless` (no log without a request log level,
 * -32021 naming `sampling` for test_missing_capability, never a request to
 * the client on the stream), capability-aware input requests, the triggers
 * (no broadcast to a modern connection) and the x-mcp-header tool. The
 * input-required tools answer -32021 naming the capability they need until
 * MRTR serves them as input_required results (input-rounds.ts is the seam).
 */
import { PassThrough } from 'node:stream';
import { afterEach, expect, test } from 'vitest';
import { createEverythingServer } from '../../examples/everything/server.js';
import { serveStdio } from '../../transports/index.js';
import type { Message } from '../contract/helpers.js';
import { within } from '../hostile/demo-process.js';
import { modernRpc, SERVER_INFO, type ModernOptions } from '../era/modern-helpers.js';
import { MODERN_FIXTURE_TOOLS } from './modern-fixture-client.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A modern stdio session on a fresh fixture: `call` sends one request and returns every line up to and including its reply. */
function modernStdio() {
  const server = createEverythingServer({ stepDelayMs: 0 });
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Message[] = [];
  let wake: (() => void) | undefined;
  output.on('data', (chunk: Buffer) => {
    lines.push(...chunk.toString().split('\n').filter(Boolean).map((l) => JSON.parse(l)));
    wake?.();
  });
  const handle = serveStdio(server, { input, output });
  closers.push(async () => {
    input.end();
    await within(handle.closed, 5000, 'stdio close');
    server.close();
  });
  let read = 0;
  let nextId = 1;
  const next = (): Promise<Message> =>
    within(
      (async () => {
        while (read >= lines.length) await new Promise<void>((resolve) => (wake = resolve));
        return lines[read++]!;
      })(),
      5000,
      'a stdio line',
    );
  const call = async (method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): Promise<Message[]> => {
    const id = nextId++;
    input.write(`${JSON.stringify(modernRpc(id, method, params, options))}\n`);
    const seen: Message[] = [];
    for (;;) {
      const line = await next();
      seen.push(line);
      if (line.id === id && line.method === undefined) return seen;
    }
  };
  return { call, lines };
}

/** No server-to-client request anywhere on the stream (SEP-2575: only replies and notifications). */
function noRequests(lines: readonly Message[]): void {
  expect(lines.filter((l) => l.method !== undefined && l.id !== undefined)).toEqual([]);
}

const complete = (text: string) => ({
  resultType: 'complete',
  content: [{ type: 'text', text }],
  _meta: { [SERVER_INFO]: { name: 'rxmcp-everything', version: expect.any(String) } },
});

test('tools/list and prompts/list list the 0.2.0-alpha.12 fixtures, complete', async () => {
  const s = modernStdio();
  const [tools] = await s.call('tools/list');
  expect(tools!.result.resultType).toBe('complete');
  const names: string[] = tools!.result.tools.map((t: { name: string }) => t.name);
  expect(names.slice(14)).toEqual(MODERN_FIXTURE_TOOLS);
  expect(tools!.result.tools.find((t: { name: string }) => t.name === 'test_x_mcp_header').inputSchema.properties.region['x-mcp-header']).toBe('Region');
  const [prompts] = await s.call('prompts/list');
  expect(prompts!.result.prompts.map((p: { name: string }) => p.name)).toContain('test_input_required_result_prompt');
});

test('test_logging_tool logs only when the request named a log level', async () => {
  const s = modernStdio();
  expect(await s.call('tools/call', { name: 'test_logging_tool', arguments: {} })).toEqual([
    { jsonrpc: '2.0', id: 1, result: complete('Logging tool completed') },
  ]);
  expect(await s.call('tools/call', { name: 'test_logging_tool', arguments: {} }, { logLevel: 'info' })).toEqual([
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'test_logging_tool ran' } },
    { jsonrpc: '2.0', id: 2, result: complete('Logging tool completed') },
  ]);
});

test('test_missing_capability without sampling declared: -32021 naming { sampling: {} }', async () => {
  const s = modernStdio();
  const [reply] = await s.call('tools/call', { name: 'test_missing_capability', arguments: {} }, { capabilities: { elicitation: {} } });
  expect(reply).toMatchObject({ id: 1, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
});

test('input-required tools and prompt, elicitation declared: never a request on the stream; -32021 until MRTR', async () => {
  const s = modernStdio();
  const caps = { capabilities: { elicitation: {}, sampling: {}, roots: {} } };
  for (const [method, params, need] of [
    ['tools/call', { name: 'test_streaming_elicitation', arguments: {} }, { elicitation: {} }],
    ['tools/call', { name: 'test_input_required_result_elicitation', arguments: {} }, { elicitation: {} }],
    ['tools/call', { name: 'test_input_required_result_sampling', arguments: {} }, { sampling: {} }],
    ['tools/call', { name: 'test_input_required_result_list_roots', arguments: {} }, { roots: {} }],
    ['tools/call', { name: 'test_input_required_result_multi_round', arguments: {} }, { elicitation: {} }],
    ['prompts/get', { name: 'test_input_required_result_prompt' }, { elicitation: {} }],
  ] as const) {
    const seen = await s.call(method, params, caps);
    expect(seen.at(-1)).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: need } } });
  }
  noRequests(s.lines);
});

test('test_input_required_result_capabilities asks only for what the request declared', async () => {
  const s = modernStdio();
  const [samplingOnly] = await s.call('tools/call', { name: 'test_input_required_result_capabilities', arguments: {} }, { capabilities: { sampling: {} } });
  expect(samplingOnly).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
  const [elicitationOnly] = await s.call(
    'tools/call',
    { name: 'test_input_required_result_capabilities', arguments: {} },
    { capabilities: { elicitation: {} } },
  );
  expect(elicitationOnly).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } });
  expect(await s.call('tools/call', { name: 'test_input_required_result_capabilities', arguments: {} })).toEqual([
    { jsonrpc: '2.0', id: 3, result: complete('sampling: not declared; elicitation: not declared') },
  ]);
});

test('the triggers answer, and a modern connection gets no list_changed broadcast', async () => {
  const s = modernStdio();
  expect(await s.call('tools/call', { name: 'test_trigger_tool_change', arguments: {} })).toEqual([
    { jsonrpc: '2.0', id: 1, result: complete('Tool list changed') },
  ]);
  expect(await s.call('tools/call', { name: 'test_trigger_prompt_change', arguments: {} })).toEqual([
    { jsonrpc: '2.0', id: 2, result: complete('Prompt list changed') },
  ]);
  // A later exchange shows nothing else was written in between.
  expect(await s.call('tools/call', { name: 'test_x_mcp_header', arguments: { region: 'eu-west-1' } })).toEqual([
    { jsonrpc: '2.0', id: 3, result: complete('Region: eu-west-1') },
  ]);
});
