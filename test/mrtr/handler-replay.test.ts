/**
 * A handler's own ctx.elicit / ctx.sample / ctx.listRoots on a modern
 * request, served by replay (streams/modern/replay.ts): input_required with
 * the request under `rxmcp.<n>`, the retry resuming with the answer, several
 * rounds carried in the sealed requestState, answers bound to their
 * question, and the fixed -32602 for a state that is not this request's.
 */
import { describe, expect, test } from 'vitest';
import { ELICIT, modern, mrtrServer, stateOf, tampered } from './modern-fixture.js';

const INVALID = { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'invalid_request_state' } };
const ALL = { elicitation: {}, sampling: {}, roots: {} };

describe('replay of a handler asking for input', () => {
  test('ctx.elicit: input_required, then the retry resumes the handler with the answer', async () => {
    const { server, runs } = mrtrServer();
    const first = await modern(server, 1, 'tools/call', { name: 'ask_name' }, { capabilities: ELICIT });
    expect(first.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'rxmcp.1': { method: 'elicitation/create', params: { mode: 'form', message: 'Name?', requestedSchema: expect.any(Object) } } },
      requestState: expect.any(String),
    });
    expect(runs).toEqual(['ask_name prefix']);
    const second = await modern(
      server,
      2,
      'tools/call',
      { name: 'ask_name', requestState: stateOf(first), inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'Ada' } } } },
      { capabilities: ELICIT },
    );
    expect(second.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Hello Ada' }] });
    expect(runs).toEqual(['ask_name prefix', 'ask_name prefix', 'ask_name done']);
  });

  test('multi-round: elicit, then sample, then roots, each answer carried to the next round', async () => {
    const { server } = mrtrServer();
    const call = (id: number, extra: Record<string, unknown>) =>
      modern(server, id, 'tools/call', { name: 'two_steps', arguments: { topic: 'rx' }, ...extra }, { capabilities: ALL });
    const r1 = await call(1, {});
    expect(Object.keys(r1.result.inputRequests)).toEqual(['rxmcp.1']);
    expect(r1.result.inputRequests['rxmcp.1'].params.message).toBe('Step 1 about rx');
    const r2 = await call(2, { requestState: stateOf(r1), inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'step1' } } } });
    expect(r2.result.inputRequests).toStrictEqual({
      'rxmcp.2': { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'step1' } }], maxTokens: 5 } },
    });
    const r3 = await call(3, { requestState: stateOf(r2), inputResponses: { 'rxmcp.2': { role: 'assistant', content: { type: 'text', text: 'step2' }, model: 'm' } } });
    expect(r3.result.inputRequests).toStrictEqual({ 'rxmcp.3': { method: 'roots/list', params: {} } });
    const r4 = await call(4, { requestState: stateOf(r3), inputResponses: { 'rxmcp.3': { roots: [{ uri: 'file:///w' }] } } });
    expect(JSON.parse(r4.result.content[0].text)).toStrictEqual({ first: { name: 'step1' }, second: 'step2', roots: ['file:///w'] });
  });

  test('a missing or malformed answer is asked again; an answer under a key not asked is ignored', async () => {
    const { server, runs } = mrtrServer();
    const first = await modern(server, 1, 'tools/call', { name: 'ask_name' }, { capabilities: ELICIT });
    const missing = await modern(server, 2, 'tools/call', { name: 'ask_name', requestState: stateOf(first), inputResponses: { 'rxmcp.9': { action: 'accept', content: { name: 'X' } } } }, { capabilities: ELICIT });
    expect(Object.keys(missing.result.inputRequests)).toEqual(['rxmcp.1']);
    const malformed = await modern(server, 3, 'tools/call', { name: 'ask_name', requestState: stateOf(missing), inputResponses: { 'rxmcp.1': { action: 'maybe' } } }, { capabilities: ELICIT });
    expect(Object.keys(malformed.result.inputRequests)).toEqual(['rxmcp.1']);
    // Without a state, an answer was never asked for by this server: asked again, not believed.
    const unasked = await modern(server, 4, 'tools/call', { name: 'ask_name', inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'Eve' } } } }, { capabilities: ELICIT });
    expect(unasked.result.resultType).toBe('input_required');
    expect(runs.filter((r) => r === 'ask_name done')).toEqual([]);
  });

  test('a handler that catches the input call still ends the round with input_required', async () => {
    const { server } = mrtrServer();
    const first = await modern(server, 1, 'tools/call', { name: 'swallow' }, { capabilities: ELICIT });
    expect(first.result.resultType).toBe('input_required');
    const second = await modern(server, 2, 'tools/call', { name: 'swallow', requestState: stateOf(first), inputResponses: { 'rxmcp.1': { action: 'decline' } } }, { capabilities: ELICIT });
    expect(second.result.content[0].text).toBe('answered');
  });

  test('tampered, foreign owner, other arguments or another tool: the fixed -32602', async () => {
    const { server, runs } = mrtrServer();
    const first = await modern(server, 1, 'tools/call', { name: 'two_steps', arguments: { topic: 'rx' } }, { capabilities: ALL });
    const state = stateOf(first);
    const answer = { 'rxmcp.1': { action: 'accept', content: { name: 'n' } } };
    const tries = [
      { name: 'two_steps', arguments: { topic: 'rx' }, requestState: tampered(state), inputResponses: answer },
      { name: 'two_steps', arguments: { topic: 'other' }, requestState: state, inputResponses: answer },
      { name: 'ask_name', requestState: state, inputResponses: answer },
    ];
    for (const [i, params] of tries.entries()) {
      expect((await modern(server, 10 + i, 'tools/call', params, { capabilities: ALL })).error).toStrictEqual(INVALID);
    }
    const foreign = await modern(server, 20, 'tools/call', { name: 'two_steps', arguments: { topic: 'rx' }, requestState: state, inputResponses: answer }, { capabilities: ALL, connId: 'intruder' });
    expect(foreign.error).toStrictEqual(INVALID);
    expect(runs).toEqual([]);
  });

  test('an expired state starts the questions over', async () => {
    const { server } = mrtrServer({ approvalTtlMs: 1000 });
    const first = await modern(server, 1, 'tools/call', { name: 'ask_name' }, { capabilities: ELICIT });
    server.virtual.schedule(() => {}, 1001);
    server.virtual.flush();
    const late = await modern(server, 2, 'tools/call', { name: 'ask_name', requestState: stateOf(first), inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'Ada' } } } }, { capabilities: ELICIT });
    expect(late.result.resultType).toBe('input_required');
    expect(stateOf(late)).not.toBe(stateOf(first));
  });

  test('only declared capabilities are asked: an undeclared one is -32021 as before', async () => {
    const { server } = mrtrServer();
    const reply = await modern(server, 1, 'tools/call', { name: 'ask_name' }, { capabilities: { sampling: {} } });
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {} } } });
  });

  test('prompts/get and resources/read replay too', async () => {
    const { server } = mrtrServer();
    const prompt = await modern(server, 1, 'prompts/get', { name: 'greeting' }, { capabilities: ELICIT });
    expect(prompt.result.inputRequests['rxmcp.1'].method).toBe('elicitation/create');
    const greeted = await modern(server, 2, 'prompts/get', { name: 'greeting', requestState: stateOf(prompt), inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'Bo' } } } }, { capabilities: ELICIT });
    expect(greeted.result.messages[0].content.text).toBe('Hello Bo');
    const read = await modern(server, 3, 'resources/read', { uri: 'demo://roots' }, { capabilities: { roots: {} } });
    expect(read.result.inputRequests).toStrictEqual({ 'rxmcp.1': { method: 'roots/list', params: {} } });
    const done = await modern(server, 4, 'resources/read', { uri: 'demo://roots', requestState: stateOf(read), inputResponses: { 'rxmcp.1': { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } } }, { capabilities: { roots: {} } });
    expect(done.result.contents[0].text).toBe('file:///a,file:///b');
    // A state for the prompt is not one for the resource.
    expect((await modern(server, 5, 'resources/read', { uri: 'demo://roots', requestState: stateOf(prompt), inputResponses: {} }, { capabilities: { roots: {} } })).error).toStrictEqual(INVALID);
  });
});
