/**
 * The fixture's 0.2.0-alpha.12 surface on the modern era (2026-07-28) over
 * stdio, as far as the core serves it today: listings with resultType, the
 * diagnostics of `server-stateless` (no log without a request log level,
 * -32021 naming `sampling` for test_missing_capability, never a request to
 * the client on the stream), capability-aware input requests, the triggers
 * (no broadcast to a modern connection) and the x-mcp-header tool. The
 * input-required tools answer named input_required rounds (ctx.askInputs
 * through input-rounds.ts) that the retries complete, and -32021 naming the
 * capability when the request did not declare it.
 */
import { afterEach, expect, test } from 'vitest';
import { createEverythingServer } from '../../examples/everything/server.js';
import type { Message } from '../contract/helpers.js';
import { modernRpc, SERVER_INFO, type ModernOptions } from '../era/modern-helpers.js';
import { stdioWire } from '../era/stdio-wire.js';
import { MODERN_FIXTURE_TOOLS } from './modern-fixture-client.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

/** A modern stdio session on a fresh fixture: `call` sends one request and returns every line up to and including its reply. */
function modernStdio() {
  const server = createEverythingServer({ stepDelayMs: 0 });
  const { send, next, lines } = stdioWire(server, closers, { afterClose: () => server.close() });
  let nextId = 1;
  const call = async (method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): Promise<Message[]> => {
    const id = nextId++;
    send(modernRpc(id, method, params, options));
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

/** The result of an input_required round: its named requests and sealed state. */
function rounds(reply: Message | undefined): { inputRequests: Record<string, { method: string; params: Record<string, unknown> }>; requestState: string } {
  expect(reply?.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
  return reply!.result;
}

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'm' });

test('input-required tools and prompt, all declared: named input_required rounds, the retries complete, never a request on the stream', async () => {
  const s = modernStdio();
  const caps = { capabilities: { elicitation: {}, sampling: {}, roots: {} } };
  const multiple = 'test_input_required_result_multiple_inputs';
  const m1 = rounds((await s.call('tools/call', { name: multiple, arguments: {} }, caps)).at(-1));
  expect(Object.keys(m1.inputRequests)).toEqual(['user_name', 'greeting', 'client_roots']);
  expect(m1.inputRequests.client_roots).toEqual({ method: 'roots/list', params: {} });
  const m2 = await s.call(
    'tools/call',
    {
      name: multiple,
      arguments: {},
      requestState: m1.requestState,
      inputResponses: { user_name: accept({ name: 'Ada' }), greeting: sampled('Hi'), client_roots: { roots: [{ uri: 'file:///a' }] }, extra: {} },
    },
    caps,
  );
  expect(m2.at(-1)!.result).toEqual(complete('Name: Ada; greeting: Hi; roots: file:///a'));

  const multi = 'test_input_required_result_multi_round';
  const r1 = rounds((await s.call('tools/call', { name: multi, arguments: {} }, caps)).at(-1));
  expect(Object.keys(r1.inputRequests)).toEqual(['step1']);
  const r2 = rounds(
    (await s.call('tools/call', { name: multi, arguments: {}, requestState: r1.requestState, inputResponses: { step1: accept({ name: 'Ada' }) } }, caps)).at(-1),
  );
  expect(Object.keys(r2.inputRequests)).toEqual(['step2']);
  const r3 = await s.call('tools/call', { name: multi, arguments: {}, requestState: r2.requestState, inputResponses: { step2: accept({ color: 'red' }) } }, caps);
  expect(r3.at(-1)!.result).toEqual(complete("Ada's favorite color is red"));

  const prompt = 'test_input_required_result_prompt';
  const p1 = rounds((await s.call('prompts/get', { name: prompt }, caps)).at(-1));
  expect(Object.keys(p1.inputRequests)).toEqual(['user_context']);
  const p2 = await s.call('prompts/get', { name: prompt, requestState: p1.requestState, inputResponses: { user_context: accept({ context: 'stdio' }) } }, caps);
  expect(p2.at(-1)!.result.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Use this context: stdio' } }]);

  const streaming = 'test_streaming_elicitation';
  const e1 = rounds((await s.call('tools/call', { name: streaming, arguments: {} }, caps)).at(-1));
  expect(Object.keys(e1.inputRequests)).toEqual(['confirmation']);
  const e2 = await s.call('tools/call', { name: streaming, arguments: {}, requestState: e1.requestState, inputResponses: { confirmation: accept({ ok: true }) } }, caps);
  expect(e2.at(-1)!.result).toEqual(complete('Streaming elicitation completed: action=accept'));

  const tamperedName = 'test_input_required_result_tampered_state';
  const t1 = rounds((await s.call('tools/call', { name: tamperedName, arguments: {} }, caps)).at(-1));
  const t2 = await s.call('tools/call', { name: tamperedName, arguments: {}, requestState: `${t1.requestState}x`, inputResponses: { confirm: accept({ ok: true }) } }, caps);
  expect(t2.at(-1)).toMatchObject({ error: { code: -32602, data: { reason: 'invalid_request_state' } } });
  noRequests(s.lines);
});

test('an input-required tool whose input kind the request did not declare: -32021 naming it', async () => {
  const s = modernStdio();
  for (const [name, need] of [
    ['test_input_required_result_elicitation', { elicitation: {} }],
    ['test_input_required_result_sampling', { sampling: {} }],
    ['test_input_required_result_list_roots', { roots: {} }],
  ] as const) {
    const seen = await s.call('tools/call', { name, arguments: {} }, { capabilities: {} });
    expect(seen.at(-1)).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: need } } });
  }
  noRequests(s.lines);
});

test('test_input_required_result_capabilities asks only for what the request declared', async () => {
  const s = modernStdio();
  const name = 'test_input_required_result_capabilities';
  const [samplingOnly] = await s.call('tools/call', { name, arguments: {} }, { capabilities: { sampling: {} } });
  const asked = rounds(samplingOnly);
  expect(Object.keys(asked.inputRequests)).toEqual(['capital_question']);
  const [done] = await s.call(
    'tools/call',
    { name, arguments: {}, requestState: asked.requestState, inputResponses: { capital_question: sampled('Paris') } },
    { capabilities: { sampling: {} } },
  );
  expect(done!.result).toEqual(complete('sampling: Paris; elicitation: not declared'));
  const [elicitationOnly] = await s.call('tools/call', { name, arguments: {} }, { capabilities: { elicitation: {} } });
  expect(Object.keys(rounds(elicitationOnly).inputRequests)).toEqual(['user_name']);
  expect(await s.call('tools/call', { name, arguments: {} })).toEqual([
    { jsonrpc: '2.0', id: 4, result: complete('sampling: not declared; elicitation: not declared') },
  ]);
  noRequests(s.lines);
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
