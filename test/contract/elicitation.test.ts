/**
 * Contract: an ASK on tools/call (the parts that need no clock). Who is
 * asked, what the elicitation/create request looks like, what counts as an
 * approval, who may answer, how handleMessage and request callers get the
 * eventual reply, how a parked call is dropped, and the two parking caps.
 */
import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry, type ServerOptions } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { CANNOT_ASK, ELICITING, NOT_CONNECTED, Peer, answer, collect, deniedResult, heldHandler, initialize, makeServer, rpc, settle } from './helpers.js';

const PROMPT = 'Really run danger?';
const ELICIT_ID = /^rxmcp-elicit-[A-Za-z0-9_-]{16,}$/;
const APPROVE = { action: 'accept', content: { approve: true } };

function askServer(options: ServerOptions = {}) {
  const runs: { args: Record<string, unknown>; connId: string }[] = [];
  const registry = new Registry();
  registry.registerTool({ name: 'danger', handler: (args, ctx) => { runs.push({ args, connId: ctx.connId }); return 'ran'; } });
  registry.registerTool({ name: 'safe', handler: () => 'safe' });
  const server = makeServer({
    registry,
    authorizer: (name) => (name === 'danger' ? { ask: PROMPT } : 'allow'),
    ...options,
  });
  return { server, runs, registry };
}

async function askingPeer(server: ReturnType<typeof makeServer>, connId?: string): Promise<Peer> {
  const peer = new Peer(server, connId === undefined ? {} : { connId });
  await peer.initialize(ELICITING);
  return peer;
}

const callDanger = (peer: Peer, id: unknown, args: Record<string, unknown> = {}) =>
  peer.send(rpc(id, 'tools/call', { name: 'danger', arguments: args }));

/** Parks one call on `peer` and returns the elicitation request it was sent. */
async function park(peer: Peer, id: unknown) {
  const before = peer.elicitations().length;
  callDanger(peer, id);
  await settle();
  const sent = peer.elicitations();
  expect(sent.length).toBe(before + 1);
  return sent[sent.length - 1]!;
}

describe('who is asked', () => {
  test('a connection that did not advertise elicitation gets the immediate deny: decision "ask", a detail saying it cannot be asked, the question as prompt', async () => {
    const { server, runs } = askServer();
    const peer = new Peer(server);
    await peer.initialize({ sampling: {} });
    const reply = await peer.call(1, 'tools/call', { name: 'danger' });
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 1, result: deniedResult('danger', 'ask', CANNOT_ASK, PROMPT) });
    expect(reply.result.content[0].text).toBe(
      '{"error":"authorization_required","tool":"danger","decision":"ask","detail":"client cannot be asked (no elicitation capability)","prompt":"Really run danger?"}',
    );
    expect(peer.elicitations()).toEqual([]);
    expect(server.stats().parked).toBe(0);
    expect(runs).toEqual([]);
    peer.close();
  });

  test('a connection that never initialized gets the same deny', async () => {
    const { server } = askServer();
    const peer = new Peer(server);
    expect((await peer.call(1, 'tools/call', { name: 'danger' })).result).toStrictEqual(deniedResult('danger', 'ask', CANNOT_ASK, PROMPT));
    peer.close();
  });

  test('advertised but without a live subscriber: the deny (a direct caller cannot be asked)', async () => {
    const { server } = askServer();
    await server.handleMessage(initialize('i', ELICITING), { connId: 'lonely' });
    const reply = (await server.handleMessage(rpc(1, 'tools/call', { name: 'danger' }), { connId: 'lonely' })) as any;
    expect(reply.result).toStrictEqual(deniedResult('danger', 'ask', NOT_CONNECTED, PROMPT));
    expect(server.stats().parked).toBe(0);
  });

  test('advertised, then the subscriber left: the deny', async () => {
    const { server } = askServer();
    const { subscription } = collect(server, 'gone');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'gone' });
    subscription.unsubscribe();
    const reply = (await server.handleMessage(rpc(1, 'tools/call', { name: 'danger' }), { connId: 'gone' })) as any;
    expect(reply.result).toStrictEqual(deniedResult('danger', 'ask', NOT_CONNECTED, PROMPT));
  });

  test('advertised AND live: an elicitation/create request, and no reply yet', async () => {
    const { server } = askServer();
    const peer = await askingPeer(server);
    await park(peer, 1);
    expect(peer.responsesTo(1)).toEqual([]);
    expect(server.stats().parked).toBe(1);
    peer.close();
  });
});

describe('a parked call never holds up its caller', () => {
  test('over a connection, other requests are answered while a call is parked', async () => {
    const { server } = askServer();
    const peer = await askingPeer(server);
    await park(peer, 'parked');
    expect(await peer.call('p', 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect((await peer.call('s', 'tools/call', { name: 'safe' })).result.content[0].text).toBe('safe');
    expect(peer.responsesTo('parked')).toEqual([]);
    peer.close();
  });

  test('push mode: notifications/cancelled for the parked call drops it; nothing is pushed for it', async () => {
    const { server, runs } = askServer();
    const { messages, subscription } = collect(server, 'sse-c');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'sse-c' });
    await server.handleMessage(rpc('c', 'tools/call', { name: 'danger' }), { connId: 'sse-c' });
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    await server.handleMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } }, { connId: 'sse-c' });
    expect(server.stats().parked).toBe(0);
    await server.handleMessage(answer(request.id, APPROVE), { connId: 'sse-c' });
    await settle();
    expect(messages.filter((m) => m.id === 'c')).toEqual([]);
    expect(runs).toEqual([]);
    subscription.unsubscribe();
  });
});

describe('the elicitation/create request', () => {
  test('has an unguessable rxmcp-elicit id and exactly the contract\'s params', async () => {
    const { server } = askServer();
    const peer = await askingPeer(server);
    const request = await park(peer, 1);
    expect(request.id).toMatch(ELICIT_ID);
    expect(request).toStrictEqual({
      jsonrpc: '2.0',
      id: request.id,
      method: 'elicitation/create',
      params: {
        message: PROMPT,
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', description: 'Approve running the danger tool' } },
          required: ['approve'],
        },
      },
    });
    peer.close();
  });

  test('every parked call gets its own id', async () => {
    const { server } = askServer();
    const peer = await askingPeer(server);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add((await park(peer, i)).id);
    expect(ids.size).toBe(20);
    for (const id of ids) expect(id).toMatch(ELICIT_ID);
    peer.close();
  });

  test('is pushed to the owner only', async () => {
    const { server } = askServer();
    const owner = await askingPeer(server, 'owner');
    const other = await askingPeer(server, 'other');
    const otherBefore = other.received.length;
    await park(owner, 1);
    await settle();
    expect(other.received.length).toBe(otherBefore);
    owner.close();
    other.close();
  });
});

describe('the answer', () => {
  test('accept with approve: true runs the tool; the reply answers the ORIGINAL call id', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server, 'p');
    callDanger(peer, 'call-1', { target: 'x' });
    await settle();
    const request = peer.elicitations()[0]!;
    peer.send(answer(request.id, APPROVE));
    const reply = await peer.waitFor((m) => m.id === 'call-1');
    expect(reply).toStrictEqual({ jsonrpc: '2.0', id: 'call-1', result: { content: [{ type: 'text', text: 'ran' }] } });
    expect(runs).toStrictEqual([{ args: { target: 'x' }, connId: 'p' }]);
    expect(server.stats().parked).toBe(0);
    // The answer itself (a response) gets no reply.
    expect(peer.responsesTo(request.id)).toEqual([]);
    peer.close();
  });

  test.each([
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['accept with approve: false', { action: 'accept', content: { approve: false } }, 'not approved'],
    ['accept without content', { action: 'accept' }, 'not approved'],
    ['accept with approve: "true" (a string)', { action: 'accept', content: { approve: 'true' } }, 'not approved'],
    ['no action', {}, 'not approved (the answer named no action)'],
    ['a null result', null, 'not approved (the answer named no action)'],
  ])('%s denies with detail "%s"', async (_what, result, detail) => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server);
    const request = await park(peer, 5);
    peer.send(answer(request.id, result));
    await settle();
    expect(peer.responsesTo(5)).toStrictEqual([{ jsonrpc: '2.0', id: 5, result: deniedResult('danger', 'ask', detail) }]);
    expect(runs).toEqual([]);
    expect(server.stats().parked).toBe(0);
    peer.close();
  });

  test('an error response denies with "elicitation failed (the client answered with an error)"', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server);
    const request = await park(peer, 6);
    peer.send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'elicitation not supported after all' } });
    await settle();
    expect(peer.responsesTo(6)).toStrictEqual([{ jsonrpc: '2.0', id: 6, result: deniedResult('danger', 'ask', 'elicitation failed (the client answered with an error)') }]);
    expect(runs).toEqual([]);
    peer.close();
  });

  test('another connection presenting the id is ignored; the owner can still answer', async () => {
    const { server, runs } = askServer();
    const owner = await askingPeer(server, 'owner');
    const thief = await askingPeer(server, 'thief');
    const request = await park(owner, 1);
    thief.send(answer(request.id, APPROVE));
    await server.handleMessage(answer(request.id, APPROVE), { connId: 'thief' });
    await server.handleMessage(answer(request.id, APPROVE));
    await settle();
    expect(runs).toEqual([]);
    expect(owner.responsesTo(1)).toEqual([]);
    expect(thief.responsesTo(1)).toEqual([]);
    expect(thief.responsesTo(request.id)).toEqual([]);
    expect(server.stats().parked).toBe(1);
    owner.send(answer(request.id, { action: 'decline' }));
    await settle();
    expect(owner.responsesTo(1)).toStrictEqual([{ jsonrpc: '2.0', id: 1, result: deniedResult('danger', 'ask', 'declined') }]);
    owner.close();
    thief.close();
  });

  test('a late answer after the call closed is ignored (no second reply, no run)', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server);
    const request = await park(peer, 1);
    peer.send(answer(request.id, { action: 'decline' }));
    peer.send(answer(request.id, APPROVE));
    await settle();
    expect(peer.responsesTo(1)).toHaveLength(1);
    expect(runs).toEqual([]);
  });

  test('an approval answered twice runs the tool once', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server);
    const request = await park(peer, 1);
    peer.send(answer(request.id, APPROVE));
    peer.send(answer(request.id, APPROVE));
    await settle();
    expect(peer.responsesTo(1)).toHaveLength(1);
    expect(runs).toHaveLength(1);
    peer.close();
  });

  test('answers go to the call they name: two parked calls, answered out of order', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server);
    const first = await park(peer, 'first');
    const second = await park(peer, 'second');
    peer.send(answer(second.id, APPROVE));
    await settle();
    expect(peer.responsesTo('second')[0].result.content[0].text).toBe('ran');
    expect(peer.responsesTo('first')).toEqual([]);
    peer.send(answer(first.id, { action: 'cancel' }));
    await settle();
    expect(peer.responsesTo('first')[0].result).toStrictEqual(deniedResult('danger', 'ask', 'cancelled'));
    expect(runs).toHaveLength(1);
    peer.close();
  });
});

describe('handleMessage callers (push mode)', () => {
  test('get null at once; the prompt and the eventual response are pushed to the subscriber', async () => {
    const { server, runs } = askServer();
    const { messages, subscription } = collect(server, 'sse-1', 'sse');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'sse-1' });
    expect(await server.handleMessage(rpc('c1', 'tools/call', { name: 'danger' }), { connId: 'sse-1' })).toBeNull();
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    expect(request.id).toMatch(ELICIT_ID);
    expect(messages.filter((m) => m.id === 'c1')).toEqual([]);
    expect(await server.handleMessage(answer(request.id, APPROVE), { connId: 'sse-1' })).toBeNull();
    await settle();
    expect(messages.filter((m) => m.id === 'c1')).toStrictEqual([
      { jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'ran' }] } },
    ]);
    expect(runs).toHaveLength(1);
    subscription.unsubscribe();
  });

  test('a deny after parking is pushed too', async () => {
    const { server } = askServer();
    const { messages, subscription } = collect(server, 'sse-2');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'sse-2' });
    expect(await server.handleMessage(rpc('c2', 'tools/call', { name: 'danger' }), { connId: 'sse-2' })).toBeNull();
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    await server.handleMessage(answer(request.id, { action: 'decline' }), { connId: 'sse-2' });
    expect(messages.filter((m) => m.id === 'c2')).toStrictEqual([
      { jsonrpc: '2.0', id: 'c2', result: deniedResult('danger', 'ask', 'declined') },
    ]);
    subscription.unsubscribe();
  });

  test('a refusal known at once (the per-connection cap) is the reply itself, not null', async () => {
    const { server } = askServer({ maxParkedElicitations: 1 });
    const { subscription } = collect(server, 'sse-3');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'sse-3' });
    expect(await server.handleMessage(rpc(1, 'tools/call', { name: 'danger' }), { connId: 'sse-3' })).toBeNull();
    const reply = (await server.handleMessage(rpc(2, 'tools/call', { name: 'danger' }), { connId: 'sse-3' })) as any;
    expect(reply.result).toStrictEqual(deniedResult('danger', 'ask', 'too many elicitations pending'));
    subscription.unsubscribe();
  });
});

describe('request callers', () => {
  test('the eventual response is the reply; the prompt is still pushed, the response is not', async () => {
    const { server, runs } = askServer();
    const { messages, subscription } = collect(server, 'stdio', 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const pending = server.request(rpc('c1', 'tools/call', { name: 'danger' }), 'stdio');
    let settled = false;
    void pending.reply.then(() => (settled = true));
    await settle();
    expect(settled).toBe(false);
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    expect(await server.request(answer(request.id, APPROVE), 'stdio').reply).toBeNull();
    expect(await pending.reply).toStrictEqual({ jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'ran' }] } });
    expect(messages.filter((m) => m.id === 'c1')).toEqual([]);
    expect(runs).toHaveLength(1);
    subscription.unsubscribe();
  });

  test('a deny is the reply too', async () => {
    const { server } = askServer();
    const { messages, subscription } = collect(server, 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const pending = server.request(rpc('c1', 'tools/call', { name: 'danger' }), 'stdio');
    await settle();
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    server.request({ jsonrpc: '2.0', id: request.id, error: { code: 1, message: 'no' } }, 'stdio');
    expect(((await pending.reply) as any)?.result).toStrictEqual(deniedResult('danger', 'ask', 'elicitation failed (the client answered with an error)'));
    subscription.unsubscribe();
  });

  test('cancel(ref) while parked: reply null, a later answer is ignored, nothing stays parked', async () => {
    const { server, runs } = askServer();
    const { messages, subscription } = collect(server, 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const pending = server.request(rpc('c1', 'tools/call', { name: 'danger' }), 'stdio');
    await settle();
    expect(server.stats().parked).toBe(1);
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    server.cancel(pending.ref);
    expect(await pending.reply).toBeNull();
    expect(server.stats()).toMatchObject({ parked: 0, outstandingRequests: 0 });
    server.request(answer(request.id, APPROVE), 'stdio');
    await settle();
    expect(runs).toEqual([]);
    expect(messages.filter((m) => m.id === 'c1')).toEqual([]);
    subscription.unsubscribe();
  });

  test('cancel(ref) once approved reaches the running tool: its signal aborts, the reply is null', async () => {
    const held = heldHandler();
    const registry = new Registry().registerTool({ name: 'danger', handler: held.handler });
    const server = makeServer({ registry, authorizer: () => ({ ask: 'ok?' }) });
    const { messages, subscription } = collect(server, 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const pending = server.request(rpc('c1', 'tools/call', { name: 'danger' }), 'stdio');
    await settle();
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    server.request(answer(request.id, APPROVE), 'stdio');
    await settle();
    expect(held.calls).toHaveLength(1);
    expect(server.stats().inFlight).toBe(1);
    server.cancel(pending.ref);
    expect(await pending.reply).toBeNull();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats().inFlight).toBe(0);
    subscription.unsubscribe();
  });

  test('its connection going away while parked ends it with a null reply and nothing parked', async () => {
    const { server, runs } = askServer();
    const { subscription } = collect(server, 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const pending = server.request(rpc('c1', 'tools/call', { name: 'danger' }), 'stdio');
    await settle();
    subscription.unsubscribe();
    expect(await pending.reply).toBeNull();
    expect(server.stats()).toMatchObject({ parked: 0, outstandingRequests: 0 });
    expect(runs).toEqual([]);
  });
});

describe('dropping a parked call with its connection', () => {
  test('connection gone while parked: no answer, nothing parked, a later answer under its id does nothing', async () => {
    const { server, runs } = askServer();
    const peer = await askingPeer(server, 'leaver');
    const request = await park(peer, 1);
    const seen = peer.received.length;
    peer.close();
    expect(server.stats().parked).toBe(0);
    expect(peer.received.length).toBe(seen);
    expect(await server.handleMessage(answer(request.id, APPROVE), { connId: 'leaver' })).toBeNull();
    await settle();
    expect(runs).toEqual([]);
  });

  test('connection gone while an approved call runs: the tool is aborted', async () => {
    const held = heldHandler();
    const registry = new Registry().registerTool({ name: 'danger', handler: held.handler });
    const server = makeServer({ registry, authorizer: () => ({ ask: 'ok?' }) });
    const peer = await askingPeer(server);
    const request = await park(peer, 1);
    peer.send(answer(request.id, APPROVE));
    await settle();
    expect(held.calls).toHaveLength(1);
    peer.close();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats().inFlight).toBe(0);
  });

  test('a push-mode parked call is dropped when its subscriber leaves', async () => {
    const { server, runs } = askServer();
    const { messages, subscription } = collect(server, 'sse');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'sse' });
    await server.handleMessage(rpc(1, 'tools/call', { name: 'danger' }), { connId: 'sse' });
    expect(server.stats().parked).toBe(1);
    const request = messages.find((m) => m.method === 'elicitation/create')!;
    subscription.unsubscribe();
    expect(server.stats().parked).toBe(0);
    await server.handleMessage(answer(request.id, APPROVE), { connId: 'sse' });
    await settle();
    expect(runs).toEqual([]);
  });
});

describe('the per-connection cap', () => {
  test('past maxParkedElicitations an ASK gets the deny "too many elicitations pending"; the parked ones stay', async () => {
    const { server } = askServer({ maxParkedElicitations: 2 });
    const peer = await askingPeer(server);
    const first = await park(peer, 1);
    await park(peer, 2);
    callDanger(peer, 3);
    await settle();
    expect(peer.responsesTo(3)).toStrictEqual([
      { jsonrpc: '2.0', id: 3, result: deniedResult('danger', 'ask', 'too many elicitations pending') },
    ]);
    expect(peer.elicitations()).toHaveLength(2);
    expect(server.stats().parked).toBe(2);
    expect(peer.responsesTo(1)).toEqual([]);
    // Room again once one closes.
    peer.send(answer(first.id, { action: 'decline' }));
    await park(peer, 4);
    peer.close();
  });

  test('the cap is per connection: another connection can still park', async () => {
    const { server } = askServer({ maxParkedElicitations: 1 });
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    await park(a, 1);
    await park(b, 1);
    expect(server.stats().parked).toBe(2);
    a.close();
    b.close();
  });
});

describe('the server-wide cap: fairness', () => {
  const full = { maxParkedElicitations: 2, maxParkedElicitationsTotal: 3 };
  const SERVER_FULL = 'too many elicitations pending on this server';

  test('a newcomer with fewer parked closes the fullest connection\'s OLDEST call and parks in its place', async () => {
    const { server } = askServer(full);
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    const c = await askingPeer(server, 'c');
    await park(a, 'a1');
    await park(a, 'a2');
    await park(b, 'b1');
    expect(server.stats().parked).toBe(3);
    await park(c, 'c1');
    expect(a.responsesTo('a1')).toStrictEqual([{ jsonrpc: '2.0', id: 'a1', result: deniedResult('danger', 'ask', SERVER_FULL) }]);
    expect(a.responsesTo('a2')).toEqual([]);
    expect(b.responsesTo('b1')).toEqual([]);
    expect(c.responsesTo('c1')).toEqual([]);
    expect(server.stats().parked).toBe(3);
    for (const p of [a, b, c]) p.close();
  });

  test('the evicted call is closed for good: its answer is ignored', async () => {
    const { server, runs } = askServer(full);
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    const evicted = await park(a, 'a1');
    await park(a, 'a2');
    await park(b, 'b1');
    const c = await askingPeer(server, 'c');
    await park(c, 'c1');
    a.send(answer(evicted.id, APPROVE));
    await settle();
    expect(runs).toEqual([]);
    expect(a.responsesTo('a1')).toHaveLength(1);
    for (const p of [a, b, c]) p.close();
  });

  test('a connection with fewer (but some) parked calls evicts too', async () => {
    const { server } = askServer({ maxParkedElicitations: 3, maxParkedElicitationsTotal: 4 });
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    for (const id of ['a1', 'a2', 'a3']) await park(a, id);
    await park(b, 'b1');
    await park(b, 'b2');
    expect(a.responsesTo('a1')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    expect(server.stats().parked).toBe(4);
    a.close();
    b.close();
  });

  test('among equally full connections the oldest call goes', async () => {
    const { server } = askServer(full);
    const peers = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => askingPeer(server, id)));
    const [a, b, c, d, e] = peers as [Peer, Peer, Peer, Peer, Peer];
    await park(a, 'a1');
    await park(b, 'b1');
    await park(c, 'c1');
    await park(d, 'd1');
    expect(a.responsesTo('a1')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    expect(b.responsesTo('b1')).toEqual([]);
    await park(e, 'e1');
    expect(b.responsesTo('b1')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    expect(c.responsesTo('c1')).toEqual([]);
    for (const p of peers) p.close();
  });

  test('an ASK from a connection as full as the fullest gets that deny itself; nothing is evicted', async () => {
    const { server } = askServer({ maxParkedElicitations: 3, maxParkedElicitationsTotal: 4 });
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    await park(a, 'a1');
    await park(a, 'a2');
    await park(b, 'b1');
    await park(b, 'b2');
    callDanger(a, 'a3');
    await settle();
    expect(a.responsesTo('a3')).toStrictEqual([{ jsonrpc: '2.0', id: 'a3', result: deniedResult('danger', 'ask', SERVER_FULL) }]);
    for (const id of ['a1', 'a2']) expect(a.responsesTo(id)).toEqual([]);
    for (const id of ['b1', 'b2']) expect(b.responsesTo(id)).toEqual([]);
    expect(a.elicitations()).toHaveLength(2);
    a.close();
    b.close();
  });

  test('an ASK from the fullest connection gets that deny itself', async () => {
    const { server } = askServer({ maxParkedElicitations: 3, maxParkedElicitationsTotal: 3 });
    const a = await askingPeer(server, 'a');
    const b = await askingPeer(server, 'b');
    await park(a, 'a1');
    await park(a, 'a2');
    await park(b, 'b1');
    callDanger(a, 'a3');
    await settle();
    expect(a.responsesTo('a3')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    expect(a.responsesTo('a1')).toEqual([]);
    expect(b.responsesTo('b1')).toEqual([]);
    expect(server.stats().parked).toBe(3);
    a.close();
    b.close();
  });

  test('a client flooding one connection crowds out only itself: a newcomer\'s call lasts', async () => {
    const { server } = askServer({ maxParkedElicitations: 4, maxParkedElicitationsTotal: 4 });
    const flood = await askingPeer(server, 'flood');
    for (const id of ['f1', 'f2', 'f3', 'f4']) await park(flood, id);
    const victim = await askingPeer(server, 'victim');
    await park(victim, 'v1');
    expect(flood.responsesTo('f1')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    for (const id of ['f5', 'f6', 'f7']) {
      callDanger(flood, id);
      await settle();
      expect(flood.responsesTo(id)[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    }
    expect(victim.responsesTo('v1')).toEqual([]);
    flood.close();
    victim.close();
  });

  test('a client spreading one call per connection evicts its own older calls before a newer one of another client', async () => {
    const { server } = askServer({ maxParkedElicitations: 4, maxParkedElicitationsTotal: 4 });
    const spread = await Promise.all([1, 2, 3, 4, 5].map((i) => askingPeer(server, `spread-${i}`)));
    for (const [i, peer] of spread.slice(0, 4).entries()) await park(peer, `s${i}`);
    const victim = await askingPeer(server, 'victim');
    await park(victim, 'v1');
    expect(spread[0]!.responsesTo('s0')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    await park(spread[4]!, 's4');
    expect(spread[1]!.responsesTo('s1')[0].result).toStrictEqual(deniedResult('danger', 'ask', SERVER_FULL));
    expect(victim.responsesTo('v1')).toEqual([]);
    expect(server.stats().parked).toBe(4);
    victim.close();
    for (const p of spread) p.close();
  });
});

describe('admission of approved calls', () => {
  test('an approved call needs a worker slot like any call: busy when the server is full', async () => {
    const held = heldHandler();
    const { server, runs, registry } = askServer({ maxInFlight: 1 });
    registry.registerTool({ name: 'slow', handler: held.handler });
    const asker = await askingPeer(server, 'asker');
    const request = await park(asker, 'ask-1');
    expect(server.stats().inFlight).toBe(0);
    const hog = new Peer(server, { connId: 'hog' });
    hog.send(rpc('slow-1', 'tools/call', { name: 'slow' }));
    await settle();
    expect(server.stats().inFlight).toBe(1);
    asker.send(answer(request.id, APPROVE));
    await settle();
    expect(asker.responsesTo('ask-1')).toStrictEqual([
      { jsonrpc: '2.0', id: 'ask-1', result: { content: [{ type: 'text', text: 'Error: server_busy' }], isError: true } },
    ]);
    expect(runs).toEqual([]);
    held.finish(0);
    await settle();
    expect(hog.responsesTo('slow-1')).toHaveLength(1);
    asker.close();
    hog.close();
  });
});

describe('through the official SDK client', () => {
  test('the client is asked with the prompt; approve runs the tool, decline gets the deny', async () => {
    const { server, runs } = askServer();
    const prompts: string[] = [];
    let approve = true;
    const client = new Client({ name: 'sdk', version: '1' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      prompts.push(request.params.message);
      return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    await client.connect(new MemoryClientTransport(server));
    expect(await client.callTool({ name: 'danger' })).toEqual({ content: [{ type: 'text', text: 'ran' }] });
    approve = false;
    expect(await client.callTool({ name: 'danger' })).toEqual(deniedResult('danger', 'ask', 'declined'));
    expect(prompts).toEqual([PROMPT, PROMPT]);
    expect(runs).toHaveLength(1);
    await client.close();
    expect(server.stats()).toMatchObject({ parked: 0, connections: 0 });
  });

  test('a client without the elicitation capability gets the immediate deny', async () => {
    const { server } = askServer();
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new MemoryClientTransport(server));
    expect(await client.callTool({ name: 'danger' })).toEqual(deniedResult('danger', 'ask', CANNOT_ASK, PROMPT));
    await client.close();
  });
});
