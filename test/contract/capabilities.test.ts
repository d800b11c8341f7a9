/**
 * Contract: the client-capability table. One entry per connection, kept
 * until its subscriber goes, capped at maxClientCapabilities; over the cap
 * the oldest entry without a live subscriber goes (possibly the one just
 * written), a live one only when all are live; each eviction is an event.
 * An evicted connection keeps working but cannot be asked until it
 * initializes again.
 */
import { describe, expect, test } from 'vitest';
import { Registry, type ServerEvent } from '../../lib/index.js';
import { CANNOT_ASK, ELICITING, Peer, collect, deniedResult, initialize, makeServer, rpc, settle } from './helpers.js';

function tableServer(maxClientCapabilities: number) {
  const registry = new Registry();
  registry.registerTool({ name: 'danger', handler: () => 'ran' });
  registry.registerTool({ name: 'plain', handler: () => 'plain' });
  const server = makeServer({
    registry,
    maxClientCapabilities,
    authorizer: (name) => (name === 'danger' ? { ask: 'go?' } : 'allow'),
  });
  const evictions: Extract<ServerEvent, { type: 'client_capabilities_evicted' }>[] = [];
  server.events$.subscribe((e) => {
    if (e.type === 'client_capabilities_evicted') evictions.push(e);
  });
  return { server, evictions };
}

const initAs = (server: ReturnType<typeof makeServer>, connId: string, capabilities: Record<string, unknown> = ELICITING) =>
  server.handleMessage(initialize(`init-${connId}`, capabilities), { connId });

describe('eviction order', () => {
  test('without live subscribers the oldest entry goes first; the event names size, the cap and liveSubscriber', async () => {
    const { server, evictions } = tableServer(2);
    await initAs(server, 'c1');
    await initAs(server, 'c2');
    expect(evictions).toEqual([]);
    await initAs(server, 'c3');
    expect(evictions).toStrictEqual([
      { type: 'client_capabilities_evicted', connId: 'c1', size: 2, maxClientCapabilities: 2, liveSubscriber: false },
    ]);
    await initAs(server, 'c4');
    expect(evictions.map((e) => e.connId)).toEqual(['c1', 'c2']);
    expect(server.stats().capabilityEntries).toBe(2);
  });

  test('an entry without a live subscriber goes before older live ones, even the one just written', async () => {
    const { server, evictions } = tableServer(2);
    const live1 = collect(server, 'live1');
    const live2 = collect(server, 'live2');
    await initAs(server, 'live1');
    await initAs(server, 'live2');
    await initAs(server, 'newcomer');
    expect(evictions).toStrictEqual([
      { type: 'client_capabilities_evicted', connId: 'newcomer', size: 2, maxClientCapabilities: 2, liveSubscriber: false },
    ]);
    live1.subscription.unsubscribe();
    live2.subscription.unsubscribe();
  });

  test('the oldest non-live entry goes, skipping older live ones', async () => {
    const { server, evictions } = tableServer(3);
    const live = collect(server, 'live');
    await initAs(server, 'live');
    await initAs(server, 'idle1');
    await initAs(server, 'idle2');
    await initAs(server, 'idle3');
    expect(evictions.map((e) => [e.connId, e.liveSubscriber])).toEqual([['idle1', false]]);
    live.subscription.unsubscribe();
  });

  test('a live entry goes only when every entry is live: then the oldest, with liveSubscriber true', async () => {
    const { server, evictions } = tableServer(2);
    const peers = [new Peer(server, { connId: 'p1' }), new Peer(server, { connId: 'p2' }), new Peer(server, { connId: 'p3' })];
    for (const p of peers) await p.initialize(ELICITING);
    expect(evictions).toStrictEqual([
      { type: 'client_capabilities_evicted', connId: 'p1', size: 2, maxClientCapabilities: 2, liveSubscriber: true },
    ]);
    for (const p of peers) p.close();
  });

  test('initializing again refreshes an entry: it becomes the newest', async () => {
    const { server, evictions } = tableServer(2);
    await initAs(server, 'c1');
    await initAs(server, 'c2');
    await initAs(server, 'c1');
    expect(evictions).toEqual([]);
    await initAs(server, 'c3');
    expect(evictions.map((e) => e.connId)).toEqual(['c2']);
  });

  test('each eviction is one event', async () => {
    const { server, evictions } = tableServer(1);
    for (let i = 0; i < 5; i++) await initAs(server, `c${i}`);
    expect(evictions.map((e) => e.connId)).toEqual(['c0', 'c1', 'c2', 'c3']);
    expect(server.stats().capabilityEntries).toBe(1);
  });
});

describe('an evicted connection', () => {
  test('keeps working, but an ASK becomes the deny until it initializes again', async () => {
    const { server, evictions } = tableServer(1);
    const victim = new Peer(server, { connId: 'victim' });
    await victim.initialize(ELICITING);
    const other = new Peer(server, { connId: 'other' });
    await other.initialize(ELICITING);
    expect(evictions.map((e) => e.connId)).toEqual(['victim']);

    expect(await victim.call('p', 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 'p', result: {} });
    expect((await victim.call('t', 'tools/call', { name: 'plain' })).result.content[0].text).toBe('plain');
    expect((await victim.call('a', 'tools/call', { name: 'danger' })).result).toStrictEqual(deniedResult('danger', 'ask', CANNOT_ASK, 'go?'));
    expect(victim.elicitations()).toEqual([]);

    await victim.initialize(ELICITING);
    victim.send(rpc('a2', 'tools/call', { name: 'danger' }));
    await settle();
    expect(victim.elicitations()).toHaveLength(1);
    expect(victim.responsesTo('a2')).toEqual([]);
    victim.close();
    other.close();
  });
});

describe('lifetime of an entry', () => {
  test('is freed when the connection\'s subscriber goes', async () => {
    const { server, evictions } = tableServer(10);
    const peer = new Peer(server, { connId: 'p' });
    await peer.initialize(ELICITING);
    expect(server.stats().capabilityEntries).toBe(1);
    peer.close();
    expect(server.stats().capabilityEntries).toBe(0);
    expect(evictions).toEqual([]);
  });

  test('is freed only when the LAST subscriber of the connection goes', async () => {
    const { server } = tableServer(10);
    const one = collect(server, 'shared');
    const two = collect(server, 'shared');
    await initAs(server, 'shared');
    one.subscription.unsubscribe();
    expect(server.stats().capabilityEntries).toBe(1);
    two.subscription.unsubscribe();
    expect(server.stats().capabilityEntries).toBe(0);
  });

  test('a connection that reconnects under the same id must initialize again to be asked', async () => {
    const { server } = tableServer(10);
    const first = new Peer(server, { connId: 'same' });
    await first.initialize(ELICITING);
    first.close();
    const second = new Peer(server, { connId: 'same' });
    expect((await second.call(1, 'tools/call', { name: 'danger' })).result).toStrictEqual(deniedResult('danger', 'ask', CANNOT_ASK, 'go?'));
    second.close();
  });

  test('initializing again replaces what the connection advertised', async () => {
    const { server } = tableServer(10);
    const peer = new Peer(server);
    await peer.initialize(ELICITING);
    await peer.initialize({});
    expect((await peer.call(1, 'tools/call', { name: 'danger' })).result).toStrictEqual(deniedResult('danger', 'ask', CANNOT_ASK, 'go?'));
    expect(peer.elicitations()).toEqual([]);
    peer.close();
  });

  test('an entry without any subscriber stays until evicted (it has no exit to wait for)', async () => {
    const { server } = tableServer(10);
    await initAs(server, 'never-subscribes');
    const passerby = new Peer(server);
    passerby.close();
    expect(server.stats().capabilityEntries).toBe(1);
  });
});
