/**
 * How a listen stream ends, on a virtual clock: notifications/cancelled
 * naming it (nothing after, not even a reply), the connection gone (no reply,
 * nothing kept), the server shutting down (the graceful complete result as
 * the reply, later listens refused), a transport ending a connection it can
 * still write to (the server's notifications/cancelled naming each stream,
 * no reply). Whatever the way, the server holds no stream and the bus no
 * subscriber afterwards.
 */
import type { RunHelpers, TestScheduler } from 'rxjs/testing';
import { describe, expect, test } from 'vitest';
import { InMemoryEventBus, type JsonRpcResponse, type OutboundMessage } from '../../lib/index.js';
import { newTestScheduler } from '../marbles/harness.js';
import { ack, cancelled, closedResult, listen, listenServer, modernOnly, onStream, tagged, toolsChanged, type Msg } from './harness.js';

const tool = (name: string) => ({ name, handler: () => name });

/**
 * A listen server on an in-memory bus, built inside one virtual-clock run so
 * the script's schedule and marbles share its clock; the server and the bus
 * come back for the checks after the run (nothing held, nobody subscribed).
 */
type OnBus = RunHelpers & { server: ReturnType<typeof listenServer>; bus: InMemoryEventBus; ts: TestScheduler };

function onBus(script: (run: OnBus) => void) {
  const ts = newTestScheduler();
  const bus = new InMemoryEventBus();
  let server!: ReturnType<typeof listenServer>;
  ts.run((helpers) => {
    server = listenServer(ts, { eventBus: bus });
    script({ ...helpers, server, bus, ts });
  });
  return { server, bus };
}

describe('subscriptions/listen: teardown', () => {
  test('notifications/cancelled naming the listen: nothing more on the stream, no reply; the bus is let go', () => {
    const { server, bus } = onBus(({ server, bus, ts, hot, expectObservable }) => {
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => expect([server.stats().listens, bus.size]).toEqual([1, 1]), 4);
      ts.schedule(() => server.registry.registerTool(tool('y')), 6);
      ts.schedule(() => server.notify('notifications/tools/list_changed'), 8);
      const inbound = hot('-l---c', { l: listen(1, { toolsListChanged: true }), c: cancelled(1) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(onStream(1))).toBe('-a-t', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
    });
    expect([server.stats().listens, bus.size]).toEqual([0, 0]);
  });

  test('a cancel naming another id, or the same id on another connection, leaves the stream open', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 5);
      const a = hot('-l-c', { l: listen(1, { toolsListChanged: true }), c: cancelled(2) });
      const b = hot('---c', { c: cancelled(1) });
      expectObservable(server.connect('A', a, { transport: 'memory' }).pipe(modernOnly)).toBe('-a---t', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
      expectObservable(server.connect('B', b, { transport: 'memory' }).pipe(modernOnly)).toBe('');
    });
  });

  test('the connection gone (its inbound ends): the stream ends without a reply and nothing stays counted', () => {
    const { server, bus } = onBus(({ server, bus, ts, hot, expectObservable }) => {
      ts.schedule(() => server.registry.registerTool(tool('x')), 2);
      ts.schedule(() => server.registry.registerTool(tool('y')), 6);
      const inbound = hot('-l--|', { l: listen(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-at-|', {
        a: ack(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }),
        t: toolsChanged(1),
      });
    });
    expect([server.stats().listens, bus.size, server.stats().connections]).toEqual([0, 0, 0]);
  });

  test('the connection unsubscribed by its client: the stream ends at that frame', () => {
    const ts = newTestScheduler();
    let server!: ReturnType<typeof listenServer>;
    ts.run(({ hot, expectObservable }) => {
      server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 2);
      ts.schedule(() => expect(server.stats().listens).toBe(0), 5);
      ts.schedule(() => server.registry.registerTool(tool('y')), 6);
      const inbound = hot('-l', { l: listen(1, { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly), '^---!').toBe('-at', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
    });
  });

  test('a listen made with request() ends with a null reply when its connection\'s subscriber leaves', async () => {
    const ts = newTestScheduler();
    const seen: OutboundMessage[] = [];
    let reply!: Promise<JsonRpcResponse | null>;
    let server!: ReturnType<typeof listenServer>;
    ts.run(() => {
      server = listenServer(ts);
      const subscription = server.subscribe((m) => seen.push(m), 'c');
      ts.schedule(() => (reply = server.request(listen(1, { toolsListChanged: true }), 'c').reply), 1);
      ts.schedule(() => subscription.unsubscribe(), 3);
      ts.schedule(() => server.registry.registerTool(tool('x')), 4);
    });
    expect(await reply).toBeNull();
    expect(seen).toEqual([ack(1, { toolsListChanged: true })]);
    expect(server.stats()).toMatchObject({ listens: 0, outstandingRequests: 0 });
  });

  test('server shutdown: every stream gets its graceful complete result as its reply, then nothing more', () => {
    const { server, bus } = onBus(({ server, bus, ts, hot, expectObservable }) => {
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => server.close(), 5);
      ts.schedule(() => server.notify('notifications/tools/list_changed'), 6);
      const inbound = hot('-lm', { l: listen(1, { toolsListChanged: true }), m: listen('two', {}) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-abt-(cd)', {
        a: ack(1, { toolsListChanged: true }),
        b: ack('two', {}),
        t: toolsChanged(1),
        c: closedResult(1),
        d: closedResult('two'),
      });
    });
    expect([server.stats().listens, bus.size]).toEqual([0, 0]);
  });

  test('cancelListens (a transport ending a live connection): notifications/cancelled naming each stream, no reply, nothing after; other connections keep theirs', () => {
    const { server } = onBus(({ server, bus, ts, hot, expectObservable }) => {
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => server.cancelListens('c', 'bye'), 5);
      ts.schedule(() => expect([server.stats().listens, bus.size]).toEqual([1, 1]), 6);
      ts.schedule(() => server.registry.registerTool(tool('y')), 7);
      const inbound = hot('-lm', { l: listen(1, { toolsListChanged: true }), m: listen('two', {}) });
      const other = hot('-l', { l: listen(1, { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-abt-(cd)', {
        a: ack(1, { toolsListChanged: true }),
        b: ack('two', {}),
        t: toolsChanged(1),
        c: tagged(1, 'notifications/cancelled', { requestId: 1, reason: 'bye' }),
        d: tagged('two', 'notifications/cancelled', { requestId: 'two', reason: 'bye' }),
      });
      expectObservable(server.connect('o', other, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-t---t', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
    });
    expect(server.stats().listens).toBe(1);
  });

  test('cancelListens on a connection without streams sends nothing', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.cancelListens('c', 'bye'), 2);
      ts.schedule(() => server.cancelListens('nobody', 'bye'), 2);
      expectObservable(server.connect('c', hot('-'), { transport: 'memory' })).toBe('');
    });
  });

  test('after shutdown a new listen is refused before any acknowledgement', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.close(), 1);
      const inbound = hot('--l', { l: listen(1, { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('--r', {
        r: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'the server is shutting down', data: { error: 'server_closing' } } },
      });
    });
  });

  test('a listen made with request() resolves with the graceful result on shutdown', async () => {
    const ts = newTestScheduler();
    let reply!: Promise<JsonRpcResponse | null>;
    ts.run(() => {
      const server = listenServer(ts);
      server.subscribe(() => {}, 'c');
      ts.schedule(() => (reply = server.request(listen('r', {}), 'c').reply), 1);
      ts.schedule(() => server.close(), 2);
    });
    expect(await reply).toEqual(closedResult('r'));
  });

  test('handleMessage (push mode): null at once; the acknowledgement, the events and the graceful result are pushed', async () => {
    const ts = newTestScheduler();
    const seen: { frame: number; message: OutboundMessage }[] = [];
    const answers: Promise<JsonRpcResponse | null>[] = [];
    ts.run(() => {
      const server = listenServer(ts);
      server.subscribe((message) => seen.push({ frame: ts.now(), message }), 'h');
      ts.schedule(() => answers.push(server.handleMessage(listen(1, { toolsListChanged: true }), { connId: 'h' })), 1);
      ts.schedule(() => server.registry.registerTool(tool('x')), 2);
      ts.schedule(() => server.close(), 3);
    });
    expect(await answers[0]).toBeNull();
    const tagged = seen.filter(({ message }) => !('method' in message) || (message.params as Msg | undefined)?._meta !== undefined);
    expect(tagged).toEqual([
      { frame: 1, message: ack(1, { toolsListChanged: true }) },
      { frame: 2, message: toolsChanged(1) },
      { frame: 3, message: closedResult(1) },
    ]);
  });

  test('handleMessage (push mode): notifications/cancelled ends the stream there', async () => {
    const ts = newTestScheduler();
    const seen: OutboundMessage[] = [];
    let server!: ReturnType<typeof listenServer>;
    ts.run(() => {
      server = listenServer(ts);
      server.subscribe((message) => seen.push(message), 'h');
      ts.schedule(() => void server.handleMessage(listen(1, { toolsListChanged: true }), { connId: 'h' }), 1);
      ts.schedule(() => void server.handleMessage(cancelled(1), { connId: 'h' }), 2);
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
    });
    expect(seen.filter((m) => (m as { params?: Msg }).params?._meta !== undefined)).toEqual([ack(1, { toolsListChanged: true })]);
    expect(server.stats().listens).toBe(0);
  });

  test('the acknowledgement is first even when delivering it makes a change (that change is not the stream\'s)', () => {
    const ts = newTestScheduler();
    const seen: OutboundMessage[] = [];
    ts.run(() => {
      const server = listenServer(ts);
      server.subscribe((message) => {
        seen.push(message);
        if ('method' in message && message.method === 'notifications/subscriptions/acknowledged') {
          server.notify('notifications/tools/list_changed');
        }
      }, 'c');
      ts.schedule(() => void server.request(listen(1, { toolsListChanged: true }), 'c'), 1);
      ts.schedule(() => server.notify('notifications/tools/list_changed'), 2);
    });
    const stream = seen.filter((m) => (m as { params?: Msg }).params?._meta !== undefined);
    expect(stream).toEqual([ack(1, { toolsListChanged: true }), toolsChanged(1)]);
  });
});
