/**
 * ctx.askInputs, the handler context's named batch of inputs, on both eras:
 * legacy sends every request to the client at once and returns the answers
 * under their keys (a failure rejects and cancels the rest); modern asks the
 * whole batch in one input_required round under the handler's keys, mixes
 * with single calls (rxmcp.<n>), refuses an undeclared kind with -32021
 * naming each, and rejects a malformed batch with a TypeError.
 */
import { describe, expect, test } from 'vitest';
import { InputNeededError, Registry, type CallContext } from '../../lib/index.js';
import { makeServer, Peer, settle, type Message } from '../contract/helpers.js';
import { modernRpc, type ModernOptions } from '../era/modern-helpers.js';

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const ASK = {
  who: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: NAME_FORM } },
  words: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 } },
  where: { method: 'roots/list' },
} as const;
const ALL = { elicitation: {}, sampling: {}, roots: {} };

function server() {
  const seen: unknown[] = [];
  const registry = new Registry()
    .registerTool({
      name: 'batch',
      handler: async (_args, ctx) => {
        const answers = await ctx.askInputs(ASK);
        return JSON.stringify({ who: answers.who.content?.name, words: answers.words.content, where: answers.where.roots.map((r) => r.uri) });
      },
    })
    .registerTool({
      name: 'mixed',
      handler: async (_args, ctx) => {
        const first = await ctx.elicit({ message: 'First?', requestedSchema: NAME_FORM });
        const { who } = await ctx.askInputs({ who: ASK.who });
        return `${String(first.content?.name)}+${String(who.content?.name)}`;
      },
    })
    .registerTool({
      name: 'bad',
      handler: async ({ shape }, ctx: CallContext) => {
        try {
          await ctx.askInputs(shape as never);
          return 'asked';
        } catch (error) {
          seen.push(error);
          return error instanceof TypeError ? `TypeError: ${error.message}` : `other: ${String(error)}`;
        }
      },
    })
    .registerTool({
      name: 'fallback',
      handler: async (_args, ctx) => {
        try {
          await ctx.askInputs(ASK);
          return 'all answered';
        } catch {
          // Still running: the batch's requests must not stay out meanwhile.
          const again = await ctx.elicit({ message: 'Just a name then?', requestedSchema: NAME_FORM });
          return `fallback ${String(again.content?.name)}`;
        }
      },
    })
    .registerTool({ name: 'none', handler: async (_args, ctx) => JSON.stringify(await ctx.askInputs({})) });
  return { server: makeServer({ registry }), seen };
}

async function modern(s: ReturnType<typeof server>['server'], id: number, params: Record<string, unknown>, options: ModernOptions = { capabilities: ALL }): Promise<Message> {
  return (await s.handleMessage(modernRpc(id, 'tools/call', { arguments: {}, ...params }, options), { connId: 'c' })) as Message;
}

describe('ctx.askInputs on a legacy request', () => {
  test('every request is sent before any is answered; the answers come back under their keys', async () => {
    const { server: s } = server();
    const peer = new Peer(s);
    await peer.initialize(ALL);
    const reply = peer.call('call', 'tools/call', { name: 'batch', arguments: {} });
    await settle();
    const asked = peer.received.filter((m) => m.method !== undefined && m.id !== undefined);
    expect(asked.map((m) => m.method)).toEqual(['elicitation/create', 'sampling/createMessage', 'roots/list']);
    expect(asked[0].params).toEqual({ message: 'Who?', requestedSchema: NAME_FORM });
    // Answered out of order: the keys still match.
    peer.send({ jsonrpc: '2.0', id: asked[2].id, result: { roots: [{ uri: 'file:///r' }] } });
    peer.send({ jsonrpc: '2.0', id: asked[1].id, result: { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' } });
    peer.send({ jsonrpc: '2.0', id: asked[0].id, result: { action: 'accept', content: { name: 'Ada' } } });
    const done = await reply;
    expect(JSON.parse(done.result.content[0].text)).toEqual({ who: 'Ada', words: { type: 'text', text: 'yo' }, where: ['file:///r'] });
    expect(s.stats().pendingClientRequests).toBe(0);
  });

  test('one kind the client cannot answer: the call fails and the requests already out are cancelled', async () => {
    const { server: s } = server();
    const peer = new Peer(s);
    await peer.initialize({ elicitation: {}, roots: {} });
    const done = await peer.call('call', 'tools/call', { name: 'batch', arguments: {} });
    // The ClientCapabilityError is the handler's to catch; let through, it is the usual crashed-callback result.
    expect(done.result).toMatchObject({ isError: true });
    const asked = peer.received.filter((m) => m.method !== undefined && m.id !== undefined);
    // All three were started at once; the two the client could take were sent, then cancelled by the failure.
    expect(asked.map((m) => m.method)).toEqual(['elicitation/create', 'roots/list']);
    const cancelled = peer.notifications('notifications/cancelled').map((m) => m.params.requestId);
    expect(cancelled.sort()).toEqual(asked.map((m) => m.id).sort());
    expect(s.stats().pendingClientRequests).toBe(0);
  });

  test('a handler that catches the failure and goes on: the batch requests are cancelled while it still runs', async () => {
    const { server: s } = server();
    const peer = new Peer(s);
    await peer.initialize({ elicitation: {}, roots: {} });
    const reply = peer.call('call', 'tools/call', { name: 'fallback', arguments: {} });
    const fallback = await peer.waitFor((m) => m.method === 'elicitation/create' && m.params.message === 'Just a name then?');
    const batch = peer.received.filter((m) => m.method !== undefined && m.id !== undefined && m !== fallback);
    expect(batch.map((m) => m.method)).toEqual(['elicitation/create', 'roots/list']);
    expect(peer.notifications('notifications/cancelled').map((m) => m.params.requestId).sort()).toEqual(batch.map((m) => m.id).sort());
    expect(s.stats().pendingClientRequests).toBe(1);
    peer.send({ jsonrpc: '2.0', id: fallback.id, result: { action: 'accept', content: { name: 'Bo' } } });
    expect((await reply).result.content[0].text).toBe('fallback Bo');
  });

  test('an empty batch answers {} without asking anything', async () => {
    const { server: s } = server();
    const peer = new Peer(s);
    await peer.initialize();
    expect((await peer.call(1, 'tools/call', { name: 'none', arguments: {} })).result.content[0].text).toBe('{}');
  });
});

describe('ctx.askInputs on a modern request', () => {
  test('one input_required round with every key; the retry answers all of them', async () => {
    const { server: s } = server();
    const first = await modern(s, 1, { name: 'batch' });
    expect(first.result.inputRequests).toStrictEqual({
      who: { method: 'elicitation/create', params: { mode: 'form', message: 'Who?', requestedSchema: NAME_FORM } },
      words: ASK.words,
      where: { method: 'roots/list', params: {} },
    });
    const done = await modern(s, 2, {
      name: 'batch',
      requestState: first.result.requestState,
      inputResponses: {
        who: { action: 'accept', content: { name: 'Ada' } },
        words: { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' },
        where: { roots: [{ uri: 'file:///r' }] },
      },
    });
    expect(JSON.parse(done.result.content[0].text)).toEqual({ who: 'Ada', words: { type: 'text', text: 'yo' }, where: ['file:///r'] });
  });

  test('single calls and a named batch in one handler: rxmcp.1, then the named key', async () => {
    const { server: s } = server();
    const r1 = await modern(s, 1, { name: 'mixed' });
    expect(Object.keys(r1.result.inputRequests)).toEqual(['rxmcp.1']);
    const r2 = await modern(s, 2, { name: 'mixed', requestState: r1.result.requestState, inputResponses: { 'rxmcp.1': { action: 'accept', content: { name: 'A' } } } });
    expect(Object.keys(r2.result.inputRequests)).toEqual(['who']);
    const r3 = await modern(s, 3, { name: 'mixed', requestState: r2.result.requestState, inputResponses: { who: { action: 'accept', content: { name: 'B' } } } });
    expect(r3.result.content[0].text).toBe('A+B');
  });

  test('kinds the request did not declare: -32021 naming each of them, nothing asked', async () => {
    const { server: s } = server();
    const reply = await modern(s, 1, { name: 'batch' }, { capabilities: { sampling: {} } });
    expect(reply.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { elicitation: {}, roots: {} } } });
    expect(reply.result).toBeUndefined();
  });

  test('a handler that catches the batch still ends the round input_required (it saw an InputNeededError)', async () => {
    const { server: s, seen } = server();
    const reply = await modern(s, 1, { name: 'bad', arguments: { shape: { who: ASK.who } } });
    expect(reply.result.resultType).toBe('input_required');
    expect(seen[0]).toBeInstanceOf(InputNeededError);
  });

  test.each([
    ['not an object', 'x', 'requests must be an object'],
    ['a reserved key', { 'rxmcp.1': ASK.where }, 'the key "rxmcp.1" is reserved'],
    ['an unknown method', { k: { method: 'tools/call', params: {} } }, 'k: method must be'],
    ['elicitation without params', { k: { method: 'elicitation/create' } }, 'k: elicitation/create needs params'],
    ['roots/list with params', { k: { method: 'roots/list', params: { a: 1 } } }, 'k: roots/list takes no params'],
  ])('%s: a TypeError naming the problem, on both eras', async (_what, shape, message) => {
    const { server: s } = server();
    const onModern = await modern(s, 1, { name: 'bad', arguments: { shape } });
    expect(onModern.result.content[0].text).toContain(`TypeError: ctx.askInputs: ${message}`);
    const peer = new Peer(s);
    await peer.initialize(ALL);
    const onLegacy = await peer.call(2, 'tools/call', { name: 'bad', arguments: { shape } });
    expect(onLegacy.result.content[0].text).toContain(`TypeError: ctx.askInputs: ${message}`);
  });
});
