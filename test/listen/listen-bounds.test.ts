/**
 * What a listen may hold, on a virtual clock: streams per connection and per
 * server (refused before any acknowledgement with -32603 and
 * `data.error: "too_many_subscriptions"`; a slot comes back when a stream
 * ends), resource URIs per filter, per connection and per server (shared
 * with resources/subscribe), the filter's shape (-32602), the id (-32600),
 * no worker held by an open stream, and the read gate.
 */
import { describe, expect, test } from 'vitest';
import { timer, map } from 'rxjs';
import { denyAll } from '../../lib/index.js';
import { newTestScheduler } from '../marbles/harness.js';
import { ack, cancelled, listen, listenServer, MODERN_META, modernOnly, SERVER_INFO, type Msg } from './harness.js';

const tooMany = (id: unknown, scope: 'connection' | 'server', max: number): Msg => ({
  jsonrpc: '2.0',
  id,
  error: { code: -32603, message: `too many subscriptions on this ${scope} (max ${max})`, data: { error: 'too_many_subscriptions', scope, max } },
});

const invalid = (id: unknown, message: string, data?: Msg): Msg => ({
  jsonrpc: '2.0',
  id,
  error: data === undefined ? { code: -32602, message } : { code: -32602, message, data },
});

describe('subscriptions/listen: bounds', () => {
  test('per connection: past maxListensPerConnection refused before any acknowledgement; a cancelled stream frees its slot', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { maxListensPerConnection: 2 });
      const inbound = hot('-abcxd', {
        a: listen(1, {}),
        b: listen(2, {}),
        c: listen(3, {}),
        x: cancelled(1),
        d: listen(4, {}),
      });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-abr-d', {
        a: ack(1, {}),
        b: ack(2, {}),
        r: tooMany(3, 'connection', 2),
        d: ack(4, {}),
      });
      // Another connection has its own share.
      expectObservable(server.connect('other', hot('---a', { a: listen(1, {}) }), { transport: 'memory' }).pipe(modernOnly)).toBe('---a', {
        a: ack(1, {}),
      });
    });
  });

  test('per server: past maxListens refused on any connection; a connection leaving frees its streams\' slots', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { maxListens: 2 });
      const a = hot('-a--|', { a: listen(1, {}) });
      const b = hot('--a', { a: listen(1, {}) });
      const c = hot('---a-b', { a: listen(1, {}), b: listen(2, {}) });
      expectObservable(server.connect('A', a, { transport: 'memory' }).pipe(modernOnly)).toBe('-a--|', { a: ack(1, {}) });
      expectObservable(server.connect('B', b, { transport: 'memory' }).pipe(modernOnly)).toBe('--a', { a: ack(1, {}) });
      expectObservable(server.connect('C', c, { transport: 'memory' }).pipe(modernOnly)).toBe('---r-b', {
        r: tooMany(1, 'server', 2),
        b: ack(2, {}),
      });
    });
  });

  test('the same id twice on one connection while the first is open: -32600; on another connection it is fine', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      const inbound = hot('-ab', { a: listen(1, {}), b: listen(1, { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-ar', {
        a: ack(1, {}),
        r: {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32600, message: 'Invalid Request: a subscription with this id is already open on this connection' },
        },
      });
    });
  });

  test('the filter is checked: missing, wrong types, too many or too long URIs are -32602; a null id is -32600', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { maxSubscriptionsPerConnection: 2, maxSubscriptionUriLength: 12 });
      const inbound = hot('-abcdefgh', {
        a: listen(1, undefined),
        b: listen(2, 'all'),
        c: listen(3, { toolsListChanged: 'yes' }),
        d: listen(4, { resourceSubscriptions: 'mem://a' }),
        e: listen(5, { resourceSubscriptions: ['mem://a', 7] }),
        f: listen(6, { resourceSubscriptions: ['mem://a', 'mem://b', 'mem://t/1'] }),
        g: listen(7, { resourceSubscriptions: ['mem://t/123456789'] }),
        h: listen(null, {}),
      });
      expectObservable(server.connect('c', inbound, { transport: 'memory' })).toBe('-abcdefgh', {
        a: invalid(1, 'subscriptions/listen requires a notifications object'),
        b: invalid(2, 'subscriptions/listen requires a notifications object'),
        c: invalid(3, 'notifications.toolsListChanged must be a boolean'),
        d: invalid(4, 'notifications.resourceSubscriptions must be an array of strings'),
        e: invalid(5, 'notifications.resourceSubscriptions must be an array of strings'),
        f: invalid(6, 'notifications.resourceSubscriptions has more than 2 URIs', { maxSubscriptionsPerConnection: 2 }),
        g: invalid(7, 'notifications.resourceSubscriptions has a URI longer than 12 characters', { maxSubscriptionUriLength: 12 }),
        h: {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32600, message: 'Invalid Request: subscriptions/listen needs a string or number id (it names the subscription)' },
        },
      });
    });
  });

  test('resource URIs per connection are summed over its streams; per server they share the resources/subscribe total', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { maxSubscriptionsPerConnection: 3, maxSubscriptionsTotal: 4 });
      const modern = hot('-ab--c', {
        a: listen(1, { resourceSubscriptions: ['mem://a', 'mem://b'] }),
        b: listen(2, { resourceSubscriptions: ['mem://t/1', 'mem://t/2'] }),
        c: listen(3, { resourceSubscriptions: ['mem://t/3'] }),
      });
      // A legacy connection holding two resources/subscribe URIs: 2 + 2 of the server's 4.
      const legacy = hot('---ab', {
        a: { jsonrpc: '2.0', id: 10, method: 'resources/subscribe', params: { uri: 'mem://a' } },
        b: { jsonrpc: '2.0', id: 11, method: 'resources/subscribe', params: { uri: 'mem://b' } },
      });
      expectObservable(server.connect('legacy', legacy, { transport: 'memory' })).toBe('---ab', {
        a: { jsonrpc: '2.0', id: 10, result: {} },
        b: { jsonrpc: '2.0', id: 11, result: {} },
      });
      const bound = (id: number, scope: string, max: number) =>
        invalid(id, `too many resource subscriptions on this ${scope} (max ${max})`, { error: 'too_many_resource_subscriptions', scope, max });
      expectObservable(server.connect('modern', modern, { transport: 'memory' }).pipe(modernOnly)).toBe('-ab--c', {
        a: ack(1, { resourceSubscriptions: ['mem://a', 'mem://b'] }),
        b: bound(2, 'connection', 3),
        c: bound(3, 'server', 4),
      });
    });
  });

  test('an open stream holds no worker: with one worker in all, a tool call still runs beside it (with and without a read gate)', () => {
    for (const readAuthorizer of [null, () => 'allow' as const]) {
      const ts = newTestScheduler();
      ts.run(({ hot, expectObservable }) => {
        const server = listenServer(ts, { maxInFlight: 1, maxInFlightPerConnection: 1, maxInFlightPerPeer: 1, readAuthorizer });
        server.registry.registerTool({ name: 'slow', handler: () => timer(5, ts).pipe(map(() => 'slow done')) });
        const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', _meta: MODERN_META } };
        const inbound = hot('-lc', { l: listen(1, {}), c: call });
        expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-----r', {
          a: ack(1, {}),
          r: { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: 'slow done' }], _meta: SERVER_INFO } },
        });
      });
    }
  });

  test('the read gate: a denied listen is refused before any acknowledgement and keeps nothing', () => {
    const ts = newTestScheduler();
    let server!: ReturnType<typeof listenServer>;
    const asked: unknown[] = [];
    ts.run(({ hot, expectObservable }) => {
      server = listenServer(ts, {
        readAuthorizer: (name, args) => {
          asked.push([name, args]);
          return denyAll()(name, args, { connId: 'c', transport: 'memory' });
        },
      });
      const inbound = hot('-l', { l: listen(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://zz'] }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' })).toBe('-r', {
        r: {
          jsonrpc: '2.0',
          id: 1,
          error: expect.objectContaining({ code: -31090, data: expect.objectContaining({ method: 'subscriptions/listen' }) }),
        },
      });
    });
    // The gate sees the honoured filter (the unserved URI already left out).
    expect(asked).toEqual([['subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://a'] } }]]);
    expect(server.stats().listens).toBe(0);
  });
});
