/**
 * The fixture's 0.2.0-alpha.12 surface on the 2025-11-25 era, with exact
 * outputs (the suite is loose: some of its checks pass on any error): the
 * listings, every input-required tool and the prompt run to completion with
 * real client requests (the exact requests the scenarios document, in
 * order), the capability-aware tool, the stateless diagnostics, the
 * list-change triggers and the x-mcp-header tool.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { ROOT, connectModernFixture, type Capability, type ModernFixtureSession } from './modern-fixture-client.js';
import { TRANSPORTS } from './transports.js';

const NO_ARGUMENTS = { type: 'object', properties: {} };
const LEGACY_TRANSPORTS = TRANSPORTS.filter((t) => ['memory', 'streamable HTTP', 'legacy HTTP+SSE'].includes(t.name));

const askName = (message = 'What is your name?') => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
});
const askConfirm = {
  method: 'elicitation/create',
  params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
};
const askSample = (text: string, maxTokens: number) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
});
const askRoots = { method: 'roots/list' };
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

describe.each(LEGACY_TRANSPORTS)('the 0.2.0-alpha.12 fixtures over $name (legacy era)', (transport) => {
  let session: ModernFixtureSession | undefined;
  const open = async (capabilities?: readonly Capability[]) => (session = await connectModernFixture(transport, capabilities));
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });

  test('tools/list: the new tools, their schemas as written', async () => {
    const { client } = await open();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.test_x_mcp_header).toEqual({
      name: 'test_x_mcp_header',
      description: 'Echoes its region argument, which travels in the Mcp-Param-Region header too (SEP-2243).',
      inputSchema: {
        type: 'object',
        properties: { region: { type: 'string', description: 'Mirrored into the Mcp-Param-Region header', 'x-mcp-header': 'Region' } },
        required: ['region'],
      },
    });
    expect(byName.test_input_required_result_elicitation).toEqual({
      name: 'test_input_required_result_elicitation',
      description: "Asks the user's name (input key user_name) and greets them.",
      inputSchema: NO_ARGUMENTS,
    });
    expect(byName.test_missing_capability).toEqual({
      name: 'test_missing_capability',
      description: 'Needs the sampling client capability: asks the client to sample a short answer.',
      inputSchema: NO_ARGUMENTS,
    });
  });

  test.each([
    ['test_input_required_result_elicitation', 'Hello, Alice!', [askName()]],
    ['test_input_required_result_sampling', 'Sampling response: Paris', [askSample('What is the capital of France?', 100)]],
    ['test_input_required_result_list_roots', `Client roots: ${ROOT.uri}`, [askRoots]],
    ['test_input_required_result_request_state', 'state-ok: confirmed=true', [askConfirm]],
    ['test_input_required_result_tampered_state', 'state-ok: confirmed=true', [askConfirm]],
    [
      'test_input_required_result_multiple_inputs',
      `Name: Alice; greeting: Paris; roots: ${ROOT.uri}`,
      [askName(), askSample('Generate a greeting', 50), askRoots],
    ],
    [
      'test_input_required_result_multi_round',
      "Alice's favorite color is blue",
      [
        askName('Step 1: What is your name?'),
        {
          method: 'elicitation/create',
          params: {
            message: 'Step 2: What is your favorite color?',
            requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
          },
        },
      ],
    ],
    ['test_input_required_result_capabilities', 'sampling: Paris; elicitation: Alice', [askSample('What is the capital of France?', 100), askName()]],
  ])('%s: asks exactly what its scenario documents, in order, and answers', async (name, answer, requests) => {
    const { client, asked } = await open();
    expect(await client.callTool({ name, arguments: {} })).toEqual(text(answer));
    expect(asked.map(({ method, params }) => (method === 'roots/list' ? { method } : { method, params }))).toEqual(requests);
  });

  test('test_input_required_result_capabilities asks only for what the client declared (sampling only)', async () => {
    const { client, asked } = await open(['sampling']);
    expect(await client.callTool({ name: 'test_input_required_result_capabilities', arguments: {} })).toEqual(
      text('sampling: Paris; elicitation: not declared'),
    );
    expect(asked.map((a) => a.method)).toEqual(['sampling/createMessage']);
  });

  test('an input the client cannot give is an isError result naming the method, not a crash', async () => {
    const { client, asked, server } = await open(['elicitation']);
    const result = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} });
    expect(result).toEqual({
      ...text('sampling/createMessage failed: the client did not advertise sampling (or cannot receive requests), so it cannot be asked to sample'),
      isError: true,
    });
    expect(asked.map((a) => a.method)).toEqual(['elicitation/create']);
    expect(server.stats().pendingClientRequests).toBe(0);
  });

  test('test_input_required_result_prompt: asks for the context, then the prompt uses it', async () => {
    const { client, asked } = await open();
    expect(await client.getPrompt({ name: 'test_input_required_result_prompt' })).toEqual({
      description: 'A prompt that asks the user for its context first (input key user_context).',
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: a conformance run' } }],
    });
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        params: {
          message: 'What context should the prompt use?',
          requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
        },
      },
    ]);
  });

  test('test_missing_capability: samples when the client can, an isError result naming sampling when it cannot', async () => {
    const able = await open(['sampling']);
    expect(await able.client.callTool({ name: 'test_missing_capability', arguments: {} })).toEqual(text('Sampling capability used: Paris'));
    expect(able.asked).toEqual([askSample('Say ok.', 10)]);
    await able.close();
    const unable = await open([]);
    expect(await unable.client.callTool({ name: 'test_missing_capability', arguments: {} })).toEqual({
      ...text('sampling/createMessage failed: the client did not advertise sampling (or cannot receive requests), so it cannot be asked to sample'),
      isError: true,
    });
  });

  test('test_streaming_elicitation logs, then asks for a confirmation; test_logging_tool logs once', async () => {
    const { client, asked, logs } = await open();
    await client.setLoggingLevel('info');
    expect(await client.callTool({ name: 'test_streaming_elicitation', arguments: {} })).toEqual(text('Streaming elicitation completed: action=accept'));
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        params: { message: 'Continue?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
      },
    ]);
    expect(await client.callTool({ name: 'test_logging_tool', arguments: {} })).toEqual(text('Logging tool completed'));
    await client.ping();
    expect(logs).toEqual([
      { level: 'info', data: 'Asking for a confirmation' },
      { level: 'info', data: 'test_logging_tool ran' },
    ]);
  });

  test('the triggers publish a list change each and leave the lists as they were', async () => {
    const { client, changes } = await open();
    const tools = await client.listTools();
    const prompts = await client.listPrompts();
    expect(await client.callTool({ name: 'test_trigger_tool_change', arguments: {} })).toEqual(text('Tool list changed'));
    // list_changed is coalesced on the server's scheduler (auditTime 0): wait for it, not for a fixed time.
    await vi.waitFor(() => expect(changes).toEqual(['tools']));
    expect(await client.callTool({ name: 'test_trigger_prompt_change', arguments: {} })).toEqual(text('Prompt list changed'));
    await vi.waitFor(() => expect(changes).toEqual(['tools', 'prompts']));
    expect(await client.listTools()).toEqual(tools);
    expect(await client.listPrompts()).toEqual(prompts);
  });

  test('test_x_mcp_header echoes its region; a call without one is an isError result', async () => {
    const { client } = await open();
    expect(await client.callTool({ name: 'test_x_mcp_header', arguments: { region: 'eu-west-1' } })).toEqual(text('Region: eu-west-1'));
    expect(await client.callTool({ name: 'test_x_mcp_header', arguments: {} })).toMatchObject({ isError: true });
  });
});
