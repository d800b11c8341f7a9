/**
 * The fixture's test_input_required_result_* tools and prompt on a modern
 * request (2026-07-28), through handleMessage with the per-request `_meta`:
 * each scenario's rounds with the exact named `inputRequests` (keys and
 * params, several in one round), the retry's `inputResponses` giving the
 * exact final output, partial answers asked again, multi-round state,
 * capability adaptation, a tampered state -32602 before the handler runs,
 * and extra response keys ignored (conformance-0.2.md §5.4).
 */
import { describe, expect, test } from 'vitest';
import { createEverythingServer } from '../../examples/everything/server.js';
import type { Message } from '../contract/helpers.js';
import { modernRpc, SERVER_INFO, type ModernOptions } from '../era/modern-helpers.js';
import { tampered } from '../mrtr/modern-fixture.js';

const ALL = { elicitation: {}, sampling: {}, roots: {} };
const INVALID = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };

const form = (message: string, field: string) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } },
});
const sample = (text: string, maxTokens: number) => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
});
const ROOTS = { method: 'roots/list', params: {} };
const CONFIRM = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
};

const accept = (content: Record<string, unknown>) => ({ action: 'accept', content });
const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model' });
const roots = { roots: [{ uri: 'file:///workspace', name: 'ws' }] };

function fixture() {
  const server = createEverythingServer({ stepDelayMs: 0 });
  let id = 0;
  /** One modern request on a fixed connection (the owner the state is bound to). */
  const call = async (method: string, params: Record<string, unknown>, options: ModernOptions = { capabilities: ALL }): Promise<Message> =>
    (await server.handleMessage(modernRpc(++id, method, params, options), { connId: 'conformance' })) as Message;
  const tool = (name: string, extra: Record<string, unknown> = {}, options?: ModernOptions) => call('tools/call', { name, arguments: {}, ...extra }, options);
  return { server, call, tool };
}

function inputRequired(reply: Message): { inputRequests: Record<string, unknown>; requestState: string } {
  expect(reply.error).toBeUndefined();
  expect(reply.result).toStrictEqual({
    resultType: 'input_required',
    inputRequests: expect.any(Object),
    requestState: expect.any(String),
    _meta: { [SERVER_INFO]: { name: 'rxmcp-everything', version: expect.any(String) } },
  });
  return reply.result;
}

const complete = (text: string) => ({
  resultType: 'complete',
  content: [{ type: 'text', text }],
  _meta: { [SERVER_INFO]: { name: 'rxmcp-everything', version: expect.any(String) } },
});

describe('test_input_required_result_* on a modern request', () => {
  test.each([
    ['test_input_required_result_elicitation', { user_name: form('What is your name?', 'name') }, { user_name: accept({ name: 'Alice' }) }, 'Hello, Alice!'],
    [
      'test_input_required_result_sampling',
      { capital_question: sample('What is the capital of France?', 100) },
      { capital_question: sampled('Paris') },
      'Sampling response: Paris',
    ],
    ['test_input_required_result_list_roots', { client_roots: ROOTS }, { client_roots: roots }, 'Client roots: file:///workspace'],
    ['test_input_required_result_request_state', { confirm: CONFIRM }, { confirm: accept({ ok: true }) }, 'state-ok: confirmed=true'],
    ['test_input_required_result_tampered_state', { confirm: CONFIRM }, { confirm: accept({ ok: true }) }, 'state-ok: confirmed=true'],
  ])('%s: one round with exactly its named input, then the retry completes', async (name, asked, answers, text) => {
    const { tool } = fixture();
    const first = inputRequired(await tool(name));
    expect(first.inputRequests).toStrictEqual(asked);
    const done = await tool(name, { requestState: first.requestState, inputResponses: answers });
    expect(done.result).toStrictEqual(complete(text));
  });

  test('multiple inputs: all three named keys in one round; a partial answer asks only the rest; extra keys ignored', async () => {
    const { tool } = fixture();
    const name = 'test_input_required_result_multiple_inputs';
    const first = inputRequired(await tool(name));
    expect(first.inputRequests).toStrictEqual({
      user_name: form('What is your name?', 'name'),
      greeting: sample('Generate a greeting', 50),
      client_roots: ROOTS,
    });
    const partial = inputRequired(await tool(name, { requestState: first.requestState, inputResponses: { user_name: accept({ name: 'Bob' }) } }));
    expect(partial.inputRequests).toStrictEqual({ greeting: sample('Generate a greeting', 50), client_roots: ROOTS });
    const done = await tool(name, {
      requestState: partial.requestState,
      inputResponses: { greeting: sampled('Hi there'), client_roots: roots, not_asked: { anything: true }, user_name: accept({ name: 'Mallory' }) },
    });
    // user_name was answered last round and sealed: a late second answer under that key does not replace it.
    expect(done.result).toStrictEqual(complete('Name: Bob; greeting: Hi there; roots: file:///workspace'));
  });

  test('multi-round: step1, then step2 with step1 carried in the sealed state, then the answer', async () => {
    const { tool } = fixture();
    const name = 'test_input_required_result_multi_round';
    const r1 = inputRequired(await tool(name));
    expect(r1.inputRequests).toStrictEqual({ step1: form('Step 1: What is your name?', 'name') });
    const r2 = inputRequired(await tool(name, { requestState: r1.requestState, inputResponses: { step1: accept({ name: 'Carol' }) } }));
    expect(r2.inputRequests).toStrictEqual({ step2: form('Step 2: What is your favorite color?', 'color') });
    const done = await tool(name, { requestState: r2.requestState, inputResponses: { step2: accept({ color: 'green' }) } });
    expect(done.result).toStrictEqual(complete("Carol's favorite color is green"));
  });

  test('a missing or malformed response is asked again; an extra key alone answers nothing', async () => {
    const { tool } = fixture();
    const name = 'test_input_required_result_elicitation';
    const first = inputRequired(await tool(name));
    const missing = inputRequired(await tool(name, { requestState: first.requestState, inputResponses: { extra: accept({ name: 'X' }) } }));
    expect(missing.inputRequests).toStrictEqual({ user_name: form('What is your name?', 'name') });
    const malformed = inputRequired(await tool(name, { requestState: missing.requestState, inputResponses: { user_name: { action: 'maybe' } } }));
    expect(malformed.inputRequests).toStrictEqual({ user_name: form('What is your name?', 'name') });
    const done = await tool(name, { requestState: malformed.requestState, inputResponses: { user_name: accept({ name: 'Dan' }), extra: 1 } });
    expect(done.result).toStrictEqual(complete('Hello, Dan!'));
  });

  test('tampered state: the fixed -32602 before the handler runs; the untouched state still completes', async () => {
    const { tool } = fixture();
    const name = 'test_input_required_result_tampered_state';
    const first = inputRequired(await tool(name));
    const answers = { confirm: accept({ ok: true }) };
    expect((await tool(name, { requestState: tampered(first.requestState), inputResponses: answers })).error).toStrictEqual(INVALID);
    expect((await tool(name, { requestState: 'not-a-state', inputResponses: answers })).error).toStrictEqual(INVALID);
    // Bound to its tool: the state of one tool is not another's.
    expect((await tool('test_input_required_result_request_state', { requestState: first.requestState, inputResponses: answers })).error).toStrictEqual(INVALID);
    expect((await tool(name, { requestState: first.requestState, inputResponses: answers })).result).toStrictEqual(complete('state-ok: confirmed=true'));
  });

  test('capabilities: asks only what the request declared, one round each', async () => {
    const { tool } = fixture();
    const name = 'test_input_required_result_capabilities';
    const samplingOnly = { capabilities: { sampling: {} } };
    const s1 = inputRequired(await tool(name, {}, samplingOnly));
    expect(s1.inputRequests).toStrictEqual({ capital_question: sample('What is the capital of France?', 100) });
    const s2 = await tool(name, { requestState: s1.requestState, inputResponses: { capital_question: sampled('Paris') } }, samplingOnly);
    expect(s2.result).toStrictEqual(complete('sampling: Paris; elicitation: not declared'));

    const elicitationOnly = { capabilities: { elicitation: {} } };
    const e1 = inputRequired(await tool(name, {}, elicitationOnly));
    expect(e1.inputRequests).toStrictEqual({ user_name: form('What is your name?', 'name') });
    const e2 = await tool(name, { requestState: e1.requestState, inputResponses: { user_name: accept({ name: 'Eve' }) } }, elicitationOnly);
    expect(e2.result).toStrictEqual(complete('sampling: not declared; elicitation: Eve'));

    const both = inputRequired(await tool(name));
    expect(Object.keys(both.inputRequests)).toEqual(['capital_question']);
    const next = inputRequired(await tool(name, { requestState: both.requestState, inputResponses: { capital_question: sampled('Paris') } }));
    expect(next.inputRequests).toStrictEqual({ user_name: form('What is your name?', 'name') });
    const done = await tool(name, { requestState: next.requestState, inputResponses: { user_name: accept({ name: 'Fay' }) } });
    expect(done.result).toStrictEqual(complete('sampling: Paris; elicitation: Fay'));

    expect((await tool(name, {}, { capabilities: {} })).result).toStrictEqual(complete('sampling: not declared; elicitation: not declared'));
  });

  test('an input kind the request did not declare: -32021 naming it, nothing asked', async () => {
    const { tool } = fixture();
    const reply = await tool('test_input_required_result_multiple_inputs', {}, { capabilities: { elicitation: {} } });
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {}, roots: {} } } });
  });

  test('the prompt: user_context asked, then the prompt uses it', async () => {
    const { call } = fixture();
    const first = inputRequired(await call('prompts/get', { name: 'test_input_required_result_prompt' }));
    expect(first.inputRequests).toStrictEqual({ user_context: form('What context should the prompt use?', 'context') });
    const done = await call('prompts/get', {
      name: 'test_input_required_result_prompt',
      requestState: first.requestState,
      inputResponses: { user_context: accept({ context: 'a conformance run' }) },
    });
    expect(done.result).toMatchObject({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: a conformance run' } }],
    });
  });
});
