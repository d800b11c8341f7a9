/**
 * Contract: admission. maxInFlight bounds callback workers across every
 * connection, maxInFlightPerConnection one connection's share; work above
 * either is a structured busy error. Parked calls hold no worker, and
 * handleMessage/request callers without a connId share the 'default' slots.
 * Handlers here hold their slot until the test completes them by hand.
 */
import { describe, expect, test } from 'vitest';
import { Registry, type ServerOptions } from '../../lib/index.js';
import { ELICITING, Peer, heldHandler, makeServer, rpc, settle } from './helpers.js';

const BUSY_RESULT = { content: [{ type: 'text', text: 'Error: server_busy' }], isError: true };
const busyRead = (id: unknown, method: string) => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32603, message: 'MCP callback failed', data: { error: 'server_busy', method } },
});

function heldServer(options: ServerOptions = {}) {
  const held = heldHandler();
  const heldReads = heldHandler();
  const registry = new Registry();
  registry.registerTool({ name: 'slow', handler: held.handler });
  registry.registerTool({ name: 'quick', handler: () => 'quick' });
  registry.registerTool({ name: 'danger', handler: () => 'ran' });
  registry.registerResource({ uri: 'mem://slow', name: 'slow', read: (_uri, ctx) => heldReads.handler({}, ctx) });
  registry.registerResource({ uri: 'mem://quick', name: 'quick', read: () => 'q' });
  const server = makeServer({
    registry,
    authorizer: (name) => (name === 'danger' ? { ask: 'ok?' } : 'allow'),
    ...options,
  });
  return { server, held, heldReads };
}

const slow = (id: unknown) => rpc(id, 'tools/call', { name: 'slow' });
const quick = (id: unknown) => rpc(id, 'tools/call', { name: 'quick' });

describe('maxInFlight', () => {
  test('bounds workers across connections; above it tools/call answers "Error: server_busy"', async () => {
    const { server, held } = heldServer({ maxInFlight: 2, maxInFlightPerConnection: 1 });
    const a = new Peer(server, { connId: 'a' });
    const b = new Peer(server, { connId: 'b' });
    const c = new Peer(server, { connId: 'c' });
    a.send(slow(1));
    b.send(slow(1));
    await settle();
    expect(server.stats().inFlight).toBe(2);
    expect(held.calls).toHaveLength(2);
    expect(await c.call(1, 'tools/call', { name: 'quick' })).toStrictEqual({ jsonrpc: '2.0', id: 1, result: BUSY_RESULT });
    expect(held.calls).toHaveLength(2);
    held.finish(0);
    await settle();
    expect(server.stats().inFlight).toBe(1);
    expect((await c.call(2, 'tools/call', { name: 'quick' })).result.content[0].text).toBe('quick');
    for (const p of [a, b, c]) p.close();
  });

  test('read methods above the bound answer -32603 "MCP callback failed" with data {error: "server_busy", method}', async () => {
    const { server } = heldServer({ maxInFlight: 1 });
    const hog = new Peer(server, { connId: 'hog' });
    hog.send(slow(1));
    await settle();
    const other = new Peer(server, { connId: 'other' });
    for (const [method, params] of [
      ['resources/read', { uri: 'mem://quick' }],
      ['resources/list', undefined],
      ['tools/list', undefined],
      ['prompts/list', undefined],
      ['logging/setLevel', { level: 'info' }],
    ] as const) {
      expect(await other.call(method, method, params)).toStrictEqual(busyRead(method, method));
    }
    hog.close();
    other.close();
  });

  test('a held read occupies a slot too', async () => {
    const { server, heldReads } = heldServer({ maxInFlight: 1 });
    const reader = new Peer(server, { connId: 'r' });
    reader.send(rpc(1, 'resources/read', { uri: 'mem://slow' }));
    await settle();
    expect(server.stats().inFlight).toBe(1);
    const other = new Peer(server, { connId: 'o' });
    expect((await other.call(2, 'tools/call', { name: 'quick' })).result).toStrictEqual(BUSY_RESULT);
    heldReads.finish(0, 'text');
    expect((await reader.waitFor((m) => m.id === 1)).result.contents[0].text).toBe('text');
    expect(server.stats().inFlight).toBe(0);
    reader.close();
    other.close();
  });

  test('inline methods (initialize, ping) need no slot', async () => {
    const { server } = heldServer({ maxInFlight: 1 });
    const hog = new Peer(server);
    hog.send(slow(1));
    await settle();
    expect(await hog.call(2, 'ping')).toStrictEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect((await hog.initialize()).result.protocolVersion).toBe('2025-11-25');
    hog.close();
  });

  test('a busy reply starts nothing and the slot count is unchanged', async () => {
    const { server, held } = heldServer({ maxInFlight: 1 });
    const p = new Peer(server);
    p.send(slow(1));
    p.send(slow(2));
    await settle();
    expect(held.calls).toHaveLength(1);
    expect(p.responsesTo(2)[0].result).toStrictEqual(BUSY_RESULT);
    expect(server.stats().inFlight).toBe(1);
    p.close();
  });

  test('a slot is freed when the call is cancelled, not only when it completes', async () => {
    const { server } = heldServer({ maxInFlight: 1 });
    const pending = server.request(slow(1));
    expect(server.stats().inFlight).toBe(1);
    server.cancel(pending.ref);
    expect(server.stats().inFlight).toBe(0);
    expect(((await server.handleMessage(quick(2))) as any).result.content[0].text).toBe('quick');
  });

  test('crashed and errored callbacks free their slot', async () => {
    const { server, held } = heldServer({ maxInFlight: 1 });
    const pending = server.request(slow(1));
    held.calls[0]!.result.error(new Error('boom'));
    expect(((await pending.reply) as any)?.result).toStrictEqual({ content: [{ type: 'text', text: 'Error: callback_crashed' }], isError: true });
    expect(server.stats().inFlight).toBe(0);
  });
});

describe('maxInFlightPerConnection', () => {
  test('one connection may hold at most its share; other connections still get slots', async () => {
    const { server, held } = heldServer({ maxInFlight: 4, maxInFlightPerConnection: 2 });
    const greedy = new Peer(server, { connId: 'greedy' });
    greedy.send(slow(1));
    greedy.send(slow(2));
    await settle();
    expect((await greedy.call(3, 'tools/call', { name: 'quick' })).result).toStrictEqual(BUSY_RESULT);
    expect(await greedy.call(4, 'resources/read', { uri: 'mem://quick' })).toStrictEqual(busyRead(4, 'resources/read'));
    const polite = new Peer(server, { connId: 'polite' });
    polite.send(slow(1));
    await settle();
    expect(held.calls).toHaveLength(3);
    expect(server.stats().inFlight).toBe(3);
    greedy.close();
    polite.close();
  });

  test('connections together can still fill maxInFlight (two at the default share do)', async () => {
    const { server, held } = heldServer({ maxInFlight: 4 });
    const a = new Peer(server, { connId: 'a' });
    const b = new Peer(server, { connId: 'b' });
    const c = new Peer(server, { connId: 'c' });
    for (const id of [1, 2, 3]) a.send(slow(id));
    for (const id of [1, 2]) b.send(slow(id));
    await settle();
    expect(a.responsesTo(3)[0].result).toStrictEqual(BUSY_RESULT);
    expect(held.calls).toHaveLength(4);
    expect((await c.call(1, 'tools/call', { name: 'quick' })).result).toStrictEqual(BUSY_RESULT);
    for (const p of [a, b, c]) p.close();
  });

  test('a connection\'s share comes back as its calls finish', async () => {
    const { server, held } = heldServer({ maxInFlight: 4, maxInFlightPerConnection: 1 });
    const p = new Peer(server, { connId: 'p' });
    p.send(slow(1));
    await settle();
    expect((await p.call(2, 'tools/call', { name: 'quick' })).result).toStrictEqual(BUSY_RESULT);
    held.finish(0);
    await settle();
    expect((await p.call(3, 'tools/call', { name: 'quick' })).result.content[0].text).toBe('quick');
    p.close();
  });

  test('handleMessage and request callers without a connId share the "default" share', async () => {
    const { server, held } = heldServer({ maxInFlight: 4, maxInFlightPerConnection: 2 });
    void server.handleMessage(slow(1));
    const viaRequest = server.request(slow(2));
    expect(held.calls.map((c) => c.ctx.connId)).toEqual(['default', 'default']);
    expect(((await server.handleMessage(quick(3))) as any).result).toStrictEqual(BUSY_RESULT);
    expect(((await server.request(quick(4)).reply) as any)?.result).toStrictEqual(BUSY_RESULT);
    expect(((await server.handleMessage(quick(5), { connId: 'default' })) as any).result).toStrictEqual(BUSY_RESULT);
    // A connection named "default" is the same share.
    const stdio = new Peer(server, { connId: 'default' });
    expect((await stdio.call(6, 'tools/call', { name: 'quick' })).result).toStrictEqual(BUSY_RESULT);
    // Another id is not.
    expect(((await server.handleMessage(quick(7), { connId: 'elsewhere' })) as any).result.content[0].text).toBe('quick');
    server.cancel(viaRequest.ref);
    stdio.close();
  });
});

describe('parked calls', () => {
  test('do not count against the in-flight bounds', async () => {
    const { server, held } = heldServer({ maxInFlight: 1 });
    const asker = new Peer(server, { connId: 'asker' });
    await asker.initialize(ELICITING);
    for (const id of ['d1', 'd2', 'd3']) asker.send(rpc(id, 'tools/call', { name: 'danger' }));
    await settle();
    expect(server.stats()).toMatchObject({ parked: 3, inFlight: 0 });
    asker.send(slow('s1'));
    await settle();
    expect(held.calls).toHaveLength(1);
    expect(asker.responsesTo('s1')).toEqual([]);
    asker.close();
  });
});
