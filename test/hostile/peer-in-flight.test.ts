/**
 * Hostile finding 8: two clients flooding a slow tool must not starve a
 * third. On top of maxInFlight (32) and maxInFlightPerConnection (16), each
 * peer gets maxInFlightPerPeer (default max(floor(maxInFlight / 3), 1) = 10):
 * two busy peers hold 20, so a third peer still has its whole share. A
 * connection with no peer of its own keeps the seed's per-connection share.
 *
 * The slow tool runs on a virtual clock that the test advances; over HTTP,
 * peers come from `trustedProxyHeader` on 127.0.0.1.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Subject, map, timer, type SchedulerLike } from 'rxjs';
import { ConfigError, createServer, Registry, type OutboundMessage, type ServerOptions } from '../../lib/index.js';
import { eventually, postJson, serve, SseReader, virtualClock, type Served } from '../http/helpers.js';

const BUSY = { content: [{ type: 'text', text: 'Error: server_busy' }], isError: true };
const SLOW_DONE = { content: [{ type: 'text', text: 'slow done' }] };
const QUICK = { content: [{ type: 'text', text: 'quick' }] };

function registry(scheduler: SchedulerLike): Registry {
  return new Registry()
    .registerTool({ name: 'slow', handler: () => timer(1000, scheduler).pipe(map(() => 'slow done')) })
    .registerTool({ name: 'quick', handler: () => 'quick' });
}

const call = (id: unknown, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

describe('in-flight shares per peer, on a virtual clock', () => {
  function coreServer(options: ServerOptions = {}) {
    const clock = virtualClock();
    const server = createServer({ registry: registry(clock.scheduler), scheduler: clock.scheduler, ...options });
    const connect = (connId: string, peer?: string) => {
      const inbound = new Subject<unknown>();
      const received: OutboundMessage[] = [];
      server.connect(connId, inbound, peer === undefined ? {} : { peer }).subscribe((m) => received.push(m));
      const results = () => received.map((m) => ('result' in m ? m.result : m));
      return { send: (m: unknown) => inbound.next(m), results };
    };
    return { server, clock, connect };
  }

  test('two peers flooding a slow tool over two connections each leave a third peer its share (defaults)', () => {
    const { server, clock, connect } = coreServer();
    const flooders = [connect('p1-a', 'addr:p1'), connect('p1-b', 'addr:p1'), connect('p2-a', 'addr:p2'), connect('p2-b', 'addr:p2')];
    for (const conn of flooders) for (let i = 0; i < 16; i += 1) conn.send(call(i, 'slow'));
    // Each peer holds its 10, whatever its connections: 20 of 32.
    expect(server.stats().inFlight).toBe(20);
    const busy = flooders.flatMap((c) => c.results()).filter((r) => JSON.stringify(r) === JSON.stringify(BUSY));
    expect(busy).toHaveLength(64 - 20);

    const third = connect('p3', 'addr:p3');
    third.send(call('fast', 'quick'));
    expect(third.results()).toEqual([QUICK]);
    // And its full share: three peers fit, 30 of 32; a fourth gets the last 2.
    for (let i = 0; i < 12; i += 1) third.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(30);
    const fourth = connect('p4', 'addr:p4');
    for (let i = 0; i < 3; i += 1) fourth.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(32);
    expect(fourth.results()).toEqual([BUSY]);

    clock.advance(1000);
    expect(server.stats().inFlight).toBe(0);
    expect(flooders.flatMap((c) => c.results()).filter((r) => JSON.stringify(r) === JSON.stringify(SLOW_DONE))).toHaveLength(20);
    flooders[0]!.send(call('again', 'quick'));
    expect(flooders[0]!.results().at(-1)).toEqual(QUICK);
  });

  test('a connection with no peer of its own keeps the per-connection share (16), counted once', () => {
    const { server, connect } = coreServer();
    const stdioLike = connect('default');
    for (let i = 0; i < 17; i += 1) stdioLike.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(16);
    // A peer named after the connection is the same thing: no second, smaller bound.
    const named = connect('self', 'self');
    for (let i = 0; i < 17; i += 1) named.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(32);
  });

  test('maxInFlightPerPeer: configurable, at most maxInFlight; the default follows maxInFlight', () => {
    const { server, connect } = coreServer({ maxInFlight: 8, maxInFlightPerPeer: 5 });
    const a = connect('a', 'addr:x');
    const b = connect('b', 'addr:x');
    for (let i = 0; i < 4; i += 1) a.send(call(i, 'slow'));
    for (let i = 0; i < 4; i += 1) b.send(call(i, 'slow'));
    expect(server.stats().inFlight).toBe(5);

    const small = coreServer({ maxInFlight: 7 });
    const c = small.connect('c', 'addr:y');
    for (let i = 0; i < 4; i += 1) c.send(call(i, 'slow'));
    expect(small.server.stats().inFlight).toBe(2);

    for (const options of [{ maxInFlightPerPeer: 33 }, { maxInFlight: 4, maxInFlightPerPeer: 5 }, { maxInFlightPerPeer: 0 }, { maxInFlightPerPeer: 1.5 }]) {
      let error: unknown;
      try {
        createServer(options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).option).toBe('maxInFlightPerPeer');
    }
  });
});

describe('over HTTP, peers by a trusted proxy header', () => {
  let served: Served | undefined;
  let release: (() => void) | undefined;
  const readers: SseReader[] = [];
  afterEach(async () => {
    // Slow calls still held (a failing run) finish, so closing does not wait for them.
    release?.();
    for (const reader of readers.splice(0)) await reader.cancel();
    await served?.close();
    served = undefined;
  });

  async function httpServer() {
    const clock = virtualClock();
    // maxInFlight 6: 3 per connection, 2 per peer.
    served = await serve({ registry: registry(clock.scheduler), scheduler: clock.scheduler, maxInFlight: 6 }, { trustedProxyHeader: 'x-forwarded-for' });
    release = () => clock.advance(1000);
    return { served, clock };
  }

  async function streamableSession(url: string, client: string): Promise<(id: number | string, name: string) => Promise<unknown>> {
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'h', version: '1' } } };
    const response = await postJson(url, init, { 'x-forwarded-for': client });
    expect(response.status).toBe(200);
    await response.json();
    const sessionId = response.headers.get('mcp-session-id')!;
    // Later requests carry no header: the session's peer is the one of the request that created it.
    return async (id, name) => {
      const reply = await postJson(url, call(id, name), { 'mcp-session-id': sessionId });
      return ((await reply.json()) as { result: unknown }).result;
    };
  }

  test('streamable HTTP: two peers (three sessions) flooding a slow tool leave a third peer a slot', async () => {
    const { served, clock } = await httpServer();
    const a1 = await streamableSession(served.url, '203.0.113.1');
    const a2 = await streamableSession(served.url, '203.0.113.1, 10.0.0.1');
    const b = await streamableSession(served.url, '203.0.113.2');
    const c = await streamableSession(served.url, '203.0.113.3');
    let answered = 0;
    const flood = [a1, a1, a1, a2, a2, a2, b, b, b].map((session, i) =>
      session(i, 'slow').then((result) => {
        answered += 1;
        return result;
      }),
    );
    // Each peer runs 2 (its share); the other 5 are answered busy at once.
    await eventually(() => answered === 5 && served.server.stats().inFlight === 4, 20_000);
    expect(await c('fast', 'quick')).toEqual(QUICK);
    clock.advance(1000);
    const results = await Promise.all(flood);
    expect(results.filter((r) => JSON.stringify(r) === JSON.stringify(SLOW_DONE))).toHaveLength(4);
    expect(results.filter((r) => JSON.stringify(r) === JSON.stringify(BUSY))).toHaveLength(5);
  });

  async function legacySession(base: string, client: string): Promise<{ reader: SseReader; post(message: unknown): Promise<void> }> {
    const response = await fetch(`${base}/sse`, { headers: { accept: 'text/event-stream', 'x-forwarded-for': client } });
    expect(response.status).toBe(200);
    const reader = new SseReader(response);
    readers.push(reader);
    const endpoint = (await reader.next()).data!;
    const post = async (message: unknown) => {
      const posted = await postJson(`${base}${endpoint}`, message);
      expect(posted.status).toBe(202);
      await posted.body?.cancel();
    };
    // A legacy SSE connection answers nothing but ping before initialize (streams/stages/decide-era.ts).
    await post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect((await reader.nextMessage()).message).toMatchObject({ id: 'init', result: {} });
    return { reader, post };
  }

  test('legacy SSE: two sessions of one peer share its slots; another peer is not held back', async () => {
    const { served } = await httpServer();
    const x1 = await legacySession(served.base, '198.51.100.9');
    const x2 = await legacySession(served.base, '198.51.100.9');
    const y = await legacySession(served.base, '198.51.100.10');
    await x1.post(call(1, 'slow'));
    await x1.post(call(2, 'slow'));
    await eventually(() => served.server.stats().inFlight === 2);
    // x2 holds nothing and the server has 4 free slots: only the peer's share refuses it
    // (at once: the busy reply is on its stream before the POST is answered).
    await x2.post(call(3, 'slow'));
    expect(served.server.stats().inFlight).toBe(2);
    expect((await x2.reader.nextMessage()).message).toEqual({ jsonrpc: '2.0', id: 3, result: BUSY });
    await y.post(call(4, 'slow'));
    await eventually(() => served.server.stats().inFlight === 3);
  });
});
