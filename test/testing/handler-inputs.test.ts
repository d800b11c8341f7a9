/**
 * A handler asking the client for input (ctx.elicit, ctx.sample,
 * ctx.listRoots, ctx.askInputs), answered by the test through the same
 * PendingInput in both eras: legacy sends real requests and reads the
 * responses; modern answers an input_required round and the retry replays
 * the handler with the answers. A timeout of the client request is on the
 * test clock too.
 */
import { describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { createTestServer, textOf, type PendingInput } from '../../testing/index.js';

const ALL = { elicitation: {}, sampling: {}, roots: {} };

function inputServer() {
  const registry = new Registry()
    .registerTool({
      name: 'plan_trip',
      handler: async (_args, ctx) => {
        const where = await ctx.elicit({ message: 'Where to?', requestedSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } });
        if (where.action !== 'accept') return `no trip (${where.action})`;
        const idea = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `A day in ${String(where.content?.city)}` } }], maxTokens: 20 });
        const { roots } = await ctx.listRoots();
        return `${String(where.content?.city)}: ${JSON.stringify(idea.content)} saved under ${roots[0]?.uri}`;
      },
    })
    .registerTool({
      name: 'both_at_once',
      handler: async (_args, ctx) => {
        const answers = await ctx.askInputs({
          name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
          greeting: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } },
        });
        return `${String(answers.name.content?.name)} / ${JSON.stringify(answers.greeting)}`;
      },
    });
  return createTestServer({ registry, clientRequestTimeoutMs: 5000, elicitationTimeoutMs: 5000 });
}

function answer(input: PendingInput): void {
  if (input.kind === 'elicitation') input.accept({ city: 'Lisbon' });
  else if (input.kind === 'sampling') input.respond({ role: 'assistant', content: { type: 'text', text: 'pasteis' }, model: 'test' });
  else if (input.kind === 'roots') input.respond({ roots: [{ uri: 'file:///trips' }] });
}

describe.each(['legacy', 'modern'] as const)('a handler asking for input (%s)', (era) => {
  test('elicitation, then sampling, then roots, each answered in turn through nextInput()', async () => {
    const { client } = inputServer();
    const c = await client(era, { capabilities: ALL });
    const call = c.callTool('plan_trip');
    const kinds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const input = await c.nextInput();
      kinds.push(input.kind);
      answer(input);
    }
    expect(kinds).toEqual(['elicitation', 'sampling', 'roots']);
    expect(textOf(await call)).toBe('Lisbon: {"type":"text","text":"pasteis"} saved under file:///trips');
    expect(c.inputs).toEqual([]);
  });

  test('the onInput option answers as requests arrive', async () => {
    const { client } = inputServer();
    const c = await client(era, { capabilities: ALL, onInput: answer });
    expect(textOf(await c.callTool('plan_trip'))).toContain('Lisbon');
  });

  test('a declined elicitation reaches the handler as a decline', async () => {
    const { client } = inputServer();
    const c = await client(era, { capabilities: ALL });
    const call = c.callTool('plan_trip');
    (await c.nextInput()).decline();
    expect(textOf(await call)).toBe('no trip (decline)');
  });

  test('askInputs: both questions at once, answered in any order', async () => {
    const { client, clock } = inputServer();
    const c = await client(era, { capabilities: ALL });
    const call = c.callTool('both_at_once');
    await clock.settle();
    expect(c.inputs.map((i) => i.kind).sort()).toEqual(['elicitation', 'sampling']);
    const sampled = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'test' };
    for (const input of [...c.inputs].reverse()) input.respond(input.kind === 'sampling' ? sampled : { action: 'accept', content: { name: 'Ada' } });
    expect(textOf(await call)).toBe(`Ada / ${JSON.stringify(sampled)}`);
  });
});

test('legacy: an unanswered sampling request fails the handler after clientRequestTimeoutMs on the clock', async () => {
  const { client, clock } = inputServer();
  const c = await client('legacy', { capabilities: ALL });
  const call = c.callTool('plan_trip');
  (await c.nextInput()).accept({ city: 'Porto' });
  const sampling = await c.nextInput();
  expect(sampling.kind).toBe('sampling');
  await clock.advance(4999);
  expect(c.inputs).toEqual([sampling]);
  await clock.advance(1);
  const result = await call;
  expect(result.isError).toBe(true);
  // The server took its request back: nothing is left waiting for the test.
  expect(sampling.outcome).toEqual({ type: 'withdrawn' });
  expect(c.inputs).toEqual([]);
});
