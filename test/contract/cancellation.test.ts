/**
 * Contract: cancellation without a clock. request() + cancel(ref), the
 * request signal (its caller gone), notifications/cancelled on one
 * connection, and handleMessage's signal. Every kind aborts the handler's
 * AbortSignal, frees its slot and lets no late reply through.
 */
import { describe, expect, test } from 'vitest';
import { Subject } from 'rxjs';
import { CallerGoneError, Registry } from '../../lib/index.js';
import { ELICITING, Peer, collect, heldHandler, initialize, makeServer, note, rpc, settle } from './helpers.js';

function heldServer() {
  const held = heldHandler();
  const registry = new Registry().registerTool({ name: 'slow', handler: held.handler });
  registry.registerTool({ name: 'danger', handler: () => 'ran' });
  const server = makeServer({ registry, authorizer: (n) => (n === 'danger' ? { ask: 'ok?' } : 'allow') });
  return { server, held };
}

const slow = (id: unknown) => rpc(id, 'tools/call', { name: 'slow' });

describe('request() and cancel(ref)', () => {
  test('cancel aborts the handler\'s signal and resolves the reply with null; the slot is freed', async () => {
    const { server, held } = heldServer();
    const pending = server.request(slow(1));
    expect(held.calls).toHaveLength(1);
    expect(server.stats()).toMatchObject({ inFlight: 1, outstandingRequests: 1 });
    server.cancel(pending.ref);
    expect(await pending.reply).toBeNull();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats()).toMatchObject({ inFlight: 0, outstandingRequests: 0 });
  });

  test('a value the handler produces after the cancel is not a reply', async () => {
    const { server, held } = heldServer();
    const pending = server.request(slow(1));
    server.cancel(pending.ref);
    held.finish(0, 'too late');
    expect(await pending.reply).toBeNull();
  });

  test('cancel reaches only its own request', async () => {
    const { server, held } = heldServer();
    const first = server.request(slow(1));
    const second = server.request(slow(2), 'other');
    server.cancel(first.ref);
    expect(held.calls[1]!.ctx.signal.aborted).toBe(false);
    held.finish(1, 'second done');
    expect(((await second.reply) as any)?.result).toStrictEqual({ content: [{ type: 'text', text: 'second done' }] });
    expect(await first.reply).toBeNull();
  });

  test('cancelling a request that already completed leaves it alone', async () => {
    const { server, held } = heldServer();
    const pending = server.request(slow(1));
    held.finish(0, 'finished');
    const reply = (await pending.reply) as any;
    server.cancel(pending.ref);
    server.cancel(pending.ref);
    expect(reply?.result).toStrictEqual({ content: [{ type: 'text', text: 'finished' }] });
    expect(await pending.reply).toBe(reply);
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
  });

  test('each request gets exactly one reply', async () => {
    const { server } = heldServer();
    const replies: unknown[] = [];
    const pending = server.request(slow(1));
    void pending.reply.then((r) => replies.push(r));
    server.cancel(pending.ref);
    server.cancel(pending.ref);
    await settle();
    expect(replies).toEqual([null]);
  });

  test('cancel reaches read methods too', async () => {
    const held = heldHandler();
    const registry = new Registry().registerResource({ uri: 'mem://slow', name: 's', read: (_u, ctx) => held.handler({}, ctx) });
    const server = makeServer({ registry });
    const pending = server.request(rpc(1, 'resources/read', { uri: 'mem://slow' }));
    server.cancel(pending.ref);
    expect(await pending.reply).toBeNull();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats().inFlight).toBe(0);
  });

  test('close() cancels every outstanding request', async () => {
    const { server, held } = heldServer();
    const a = server.request(slow(1));
    const b = server.request(slow(2), 'x');
    server.close();
    expect(await a.reply).toBeNull();
    expect(await b.reply).toBeNull();
    expect(held.calls.every((c) => c.ctx.signal.aborted)).toBe(true);
    expect(server.stats().outstandingRequests).toBe(0);
  });
});

describe('request() with a signal (the caller going away)', () => {
  test('aborting it cancels every request made with it, and only those', async () => {
    const { server, held } = heldServer();
    const caller = new AbortController();
    const one = server.request(slow(1), 'default', { signal: caller.signal });
    const two = server.request(slow(2), 'default', { signal: caller.signal });
    const bystander = server.request(slow(3), 'default');
    caller.abort();
    expect(await one.reply).toBeNull();
    expect(await two.reply).toBeNull();
    expect(held.calls.map((c) => c.ctx.signal.aborted)).toEqual([true, true, false]);
    expect(server.stats()).toMatchObject({ inFlight: 1, outstandingRequests: 1 });
    server.cancel(bystander.ref);
  });

  test('an already-aborted signal: null at once, nothing runs', async () => {
    const { server, held } = heldServer();
    const gone = new AbortController();
    gone.abort();
    expect(await server.request(slow(1), 'default', { signal: gone.signal }).reply).toBeNull();
    expect(held.calls).toEqual([]);
    expect(server.stats()).toMatchObject({ inFlight: 0, outstandingRequests: 0 });
  });

  test('aborting after the reply changes nothing', async () => {
    const { server, held } = heldServer();
    const caller = new AbortController();
    const pending = server.request(slow(1), 'default', { signal: caller.signal });
    held.finish(0, 'ok');
    const reply = (await pending.reply) as any;
    caller.abort();
    expect(reply?.result).toStrictEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
  });

  test('the caller going away drops its parked call', async () => {
    const { server } = heldServer();
    const { subscription } = collect(server, 'stdio');
    await server.request(initialize('i', ELICITING), 'stdio').reply;
    const caller = new AbortController();
    const pending = server.request(rpc('d', 'tools/call', { name: 'danger' }), 'stdio', { signal: caller.signal });
    await settle();
    expect(server.stats().parked).toBe(1);
    caller.abort();
    expect(await pending.reply).toBeNull();
    expect(server.stats().parked).toBe(0);
    subscription.unsubscribe();
  });
});

describe('notifications/cancelled', () => {
  test('cancels the named call on that connection: its signal aborts, no reply is sent, the notification gets none', async () => {
    const { server, held } = heldServer();
    const peer = new Peer(server);
    peer.send(slow(7));
    peer.send(slow(8));
    await settle();
    peer.send(note('notifications/cancelled', { requestId: 7, reason: 'user pressed stop' }));
    await settle();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(held.calls[1]!.ctx.signal.aborted).toBe(false);
    held.finish(0, 'late');
    held.finish(1, 'kept');
    await settle();
    expect(peer.responsesTo(7)).toEqual([]);
    expect(peer.responsesTo(8)).toHaveLength(1);
    expect(peer.received).toHaveLength(1);
    expect(server.stats().inFlight).toBe(0);
    peer.close();
  });

  test('only on the connection that sent it: another connection naming the same id cancels nothing', async () => {
    const { server, held } = heldServer();
    const owner = new Peer(server, { connId: 'owner' });
    const other = new Peer(server, { connId: 'other' });
    owner.send(slow(1));
    await settle();
    other.send(note('notifications/cancelled', { requestId: 1 }));
    await server.handleMessage(note('notifications/cancelled', { requestId: 1 }));
    await settle();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
    held.finish(0, 'done');
    await settle();
    expect(owner.responsesTo(1)).toHaveLength(1);
    expect(other.received).toEqual([]);
    owner.close();
    other.close();
  });

  test('matches the id exactly: "1" does not cancel 1', async () => {
    const { server, held } = heldServer();
    const peer = new Peer(server);
    peer.send(slow(1));
    peer.send(note('notifications/cancelled', { requestId: '1' }));
    await settle();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
    peer.close();
  });

  test('drops a parked call: no reply, nothing parked, a later answer runs nothing', async () => {
    const { server } = heldServer();
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    peer.send(rpc('d', 'tools/call', { name: 'danger' }));
    await settle();
    const request = peer.elicitations()[0]!;
    peer.send(note('notifications/cancelled', { requestId: 'd' }));
    await settle();
    expect(server.stats().parked).toBe(0);
    peer.send({ jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { approve: true } } });
    await settle();
    expect(peer.responsesTo('d')).toEqual([]);
    peer.close();
  });

  test('reaches a handleMessage call on the same connection id: its Promise resolves null', async () => {
    const { server, held } = heldServer();
    const reply = server.handleMessage(slow(5), { connId: 'h' });
    expect(await server.handleMessage(note('notifications/cancelled', { requestId: 5 }), { connId: 'h' })).toBeNull();
    expect(await reply).toBeNull();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
  });

  test('a malformed cancellation (no requestId, bad params) is ignored', async () => {
    const { server, held } = heldServer();
    const peer = new Peer(server);
    peer.send(slow(1));
    peer.send(note('notifications/cancelled'));
    peer.send(note('notifications/cancelled', {}));
    peer.send(note('notifications/cancelled', [1]));
    await settle();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
    expect(peer.received).toEqual([]);
    peer.close();
  });
});

describe('handleMessage with a signal', () => {
  test('aborting it rejects with CallerGoneError and cancels the call: signal aborted, slot freed', async () => {
    const { server, held } = heldServer();
    const caller = new AbortController();
    const reply = server.handleMessage(slow(1), { signal: caller.signal });
    expect(server.stats().inFlight).toBe(1);
    caller.abort();
    await expect(reply).rejects.toBeInstanceOf(CallerGoneError);
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats().inFlight).toBe(0);
  });

  test('an already-aborted signal rejects at once and runs nothing', async () => {
    const { server, held } = heldServer();
    const gone = new AbortController();
    gone.abort();
    await expect(server.handleMessage(slow(1), { signal: gone.signal })).rejects.toBeInstanceOf(CallerGoneError);
    expect(held.calls).toEqual([]);
  });

  test('aborting after the reply changes nothing', async () => {
    const { server, held } = heldServer();
    const caller = new AbortController();
    const reply = server.handleMessage(slow(1), { signal: caller.signal });
    held.finish(0, 'ok');
    expect(((await reply) as any).result.content[0].text).toBe('ok');
    caller.abort();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(false);
  });

  test('a signal on a synchronous method is harmless', async () => {
    const server = makeServer();
    const caller = new AbortController();
    expect(await server.handleMessage(rpc(1, 'ping'), { signal: caller.signal })).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
    caller.abort();
  });
});

describe('connection gone', () => {
  test('closing a connection aborts its running calls and sends nothing more', async () => {
    const { server, held } = heldServer();
    const peer = new Peer(server);
    peer.send(slow(1));
    await settle();
    peer.close();
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats()).toMatchObject({ inFlight: 0, connections: 0 });
  });

  test.each(['complete', 'error'] as const)('the inbound stream ending (%s) is the peer gone: calls aborted, parked dropped, outbound completes', async (how) => {
    const { server, held } = heldServer();
    const inbound = new Subject<unknown>();
    let completed = false;
    const received: unknown[] = [];
    server.connect('peer', inbound, { transport: 'stdio' }).subscribe({ next: (m) => received.push(m), complete: () => (completed = true) });
    inbound.next(initialize('i', ELICITING));
    inbound.next(slow(1));
    inbound.next(rpc(2, 'tools/call', { name: 'danger' }));
    await settle();
    expect(server.stats()).toMatchObject({ inFlight: 1, parked: 1, connections: 1 });
    if (how === 'complete') inbound.complete();
    else inbound.error(new Error('socket reset'));
    await settle();
    expect(completed).toBe(true);
    expect(held.calls[0]!.ctx.signal.aborted).toBe(true);
    expect(server.stats()).toMatchObject({ inFlight: 0, parked: 0, connections: 0, capabilityEntries: 0 });
    const count = received.length;
    held.finish(0, 'late');
    await settle();
    expect(received.length).toBe(count);
  });
});
