/**
 * subscriptions/listen on a virtual clock: the acknowledgement is the first
 * message of a stream, then only the kinds (and resource URIs) the client
 * opted into and the server honours, each tagged with the listen request's
 * id; registry changes arrive coalesced, one per kind per frame; two streams
 * on one connection are told apart by their ids. A legacy request still
 * gets -32601.
 */
import { describe, expect, test } from 'vitest';
import type { CallContext, OutboundMessage } from '../../lib/index.js';
import { newTestScheduler } from '../marbles/harness.js';
import {
  MODERN_META,
  SUB,
  ack,
  listen,
  listenRegistry,
  listenServer,
  modernOnly,
  onStream,
  promptsChanged,
  resourcesChanged,
  toolsChanged,
  updated,
} from './harness.js';

const tool = (name: string) => ({ name, handler: () => name });

describe('subscriptions/listen: the stream', () => {
  test('the acknowledgement first, with the honoured filter, then each event tagged with the listen id', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => server.resourceUpdated('mem://a'), 5);
      const filter = { toolsListChanged: true, resourceSubscriptions: ['mem://a'] };
      const inbound = hot('-l', { l: listen(7, filter) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(onStream(7))).toBe('-a-t-u', {
        a: ack(7, filter),
        t: toolsChanged(7),
        u: updated(7, 'mem://a'),
      });
    });
  });

  test('nothing before the acknowledgement: a change in the frame before the listen is not on the stream', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 1);
      ts.schedule(() => server.registry.registerTool(tool('y')), 3);
      const inbound = hot('--l', { l: listen('s', { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('--at', {
        a: ack('s', { toolsListChanged: true }),
        t: toolsChanged('s'),
      });
    });
  });

  test('only the kinds opted into: tools, resources and resource updates are not sent to a prompts-only stream', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 2);
      ts.schedule(() => server.registry.registerPrompt({ name: 'p', get: () => 'p' }), 3);
      ts.schedule(() => server.registry.registerResource({ uri: 'mem://c', name: 'c', read: () => 'c' }), 4);
      ts.schedule(() => server.resourceUpdated('mem://a'), 5);
      // false is "not asked": it is left out of the acknowledgement.
      const inbound = hot('-l', { l: listen(1, { toolsListChanged: false, promptsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-p', {
        a: ack(1, { promptsListChanged: true }),
        p: promptsChanged(1),
      });
    });
  });

  test('an empty filter is acknowledged as empty and carries nothing', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => {
        server.registry.registerTool(tool('x'));
        server.registry.registerPrompt({ name: 'p', get: () => 'p' });
        server.resourceUpdated('mem://a');
      }, 3);
      const inbound = hot('-l', { l: listen(1, {}) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a', { a: ack(1, {}) });
    });
  });

  test('resources/updated only for the URIs asked and served: duplicates once, an unserved URI left out of the acknowledgement', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.resourceUpdated('mem://b'), 2);
      ts.schedule(() => server.resourceUpdated('mem://a'), 3);
      ts.schedule(() => server.resourceUpdated('mem://t/1'), 4);
      ts.schedule(() => server.resourceUpdated('mem://t/2'), 5);
      ts.schedule(() => server.resourceUpdated('mem://nope'), 6);
      ts.schedule(() => server.registry.registerResource({ uri: 'mem://c', name: 'c', read: () => 'c' }), 7);
      const inbound = hot('-l', { l: listen(1, { resourceSubscriptions: ['mem://a', 'mem://t/1', 'mem://nope', 'mem://a'] }) });
      // The whole connection: no legacy resources/subscribe here, so the untagged broadcasts are filtered out.
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-uv', {
        a: ack(1, { resourceSubscriptions: ['mem://a', 'mem://t/1'] }),
        u: updated(1, 'mem://a'),
        v: updated(1, 'mem://t/1'),
      });
    });
  });

  test('list changes coalesce: several in one frame are one tagged notification per kind; the next frame is another', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => {
        server.registry.registerTool(tool('x'));
        server.registry.registerTool(tool('y'));
        server.registry.unregisterTool('x');
        server.registry.registerResource({ uri: 'mem://c', name: 'c', read: () => 'c' });
        server.registry.registerResource({ uri: 'mem://d', name: 'd', read: () => 'd' });
      }, 3);
      ts.schedule(() => server.registry.registerTool(tool('z')), 7);
      const filter = { toolsListChanged: true, resourcesListChanged: true };
      const inbound = hot('-l', { l: listen(1, filter) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-(tr)t', {
        a: ack(1, filter),
        t: toolsChanged(1),
        r: resourcesChanged(1),
      });
    });
  });

  test('two listens on one connection: each message tagged with its own stream id', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => server.registry.registerPrompt({ name: 'p', get: () => 'p' }), 7);
      const inbound = hot('-lm', {
        l: listen(1, { toolsListChanged: true }),
        m: listen('b', { toolsListChanged: true, promptsListChanged: true }),
      });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-ab(xy)z', {
        a: ack(1, { toolsListChanged: true }),
        b: ack('b', { toolsListChanged: true, promptsListChanged: true }),
        x: toolsChanged(1),
        y: toolsChanged('b'),
        z: promptsChanged('b'),
      });
    });
  });

  test('a listen of one connection is not heard on another; both hear the same change on their own streams', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      const a = hot('-l', { l: listen(1, { toolsListChanged: true }) });
      const b = hot('--l', { l: listen(1, {}) });
      expectObservable(server.connect('A', a, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-t', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
      expectObservable(server.connect('B', b, { transport: 'memory' }).pipe(modernOnly)).toBe('--a', { a: ack(1, {}) });
    });
  });

  test('request-scoped messages (progress, log lines) of a call beside the stream never carry its tag', () => {
    const ts = newTestScheduler();
    const seen: OutboundMessage[] = [];
    ts.run(({ hot }) => {
      const chatty = {
        name: 'chatty',
        handler: (_args: unknown, ctx: CallContext) => {
          ctx.progress(1, 2);
          ctx.log('error', 'a line');
          return 'done';
        },
      };
      const server = listenServer(ts, { registry: listenRegistry().registerTool(chatty) });
      const _meta = { ...MODERN_META, 'io.modelcontextprotocol/logLevel': 'debug', progressToken: 't' };
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'chatty', _meta } };
      const inbound = hot('-lc', { l: listen(1, { toolsListChanged: true, resourcesListChanged: true }), c: call });
      server.connect('c', inbound, { transport: 'memory' }).subscribe((m) => seen.push(m));
    });
    const methods = seen.map((m) => ('method' in m ? m.method : `reply ${String(m.id)}`));
    expect(methods).toEqual(['notifications/subscriptions/acknowledged', 'notifications/progress', 'notifications/message', 'reply 2']);
    const tags = seen.map((m) => (m as { params?: { _meta?: Record<string, unknown> } }).params?._meta?.[SUB]);
    expect(tags).toEqual([1, undefined, undefined, undefined]);
  });

  test('a connection pinned modern by its listen hears changes on its stream only (no untagged broadcast)', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts);
      ts.schedule(() => server.registry.registerTool(tool('x')), 3);
      ts.schedule(() => server.notify('notifications/custom'), 4);
      const inbound = hot('-l', { l: listen(1, { toolsListChanged: true }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' })).toBe('-a-t', {
        a: ack(1, { toolsListChanged: true }),
        t: toolsChanged(1),
      });
    });
  });

  test('a legacy request (no modern protocol version in _meta) still gets -32601 Unknown method', async () => {
    const ts = newTestScheduler();
    const unknown = (id: number) => ({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Unknown method: subscriptions/listen' } });
    let server!: ReturnType<typeof listenServer>;
    ts.run(({ hot, expectObservable }) => {
      server = listenServer(ts);
      const inbound = hot('-ln', {
        l: { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } },
        n: { jsonrpc: '2.0', id: 3, method: 'subscriptions/listen' },
      });
      expectObservable(server.connect('c', inbound, { transport: 'memory' })).toBe('-ab', { a: unknown(1), b: unknown(3) });
    });
    const direct = { jsonrpc: '2.0', id: 4, method: 'subscriptions/listen', params: { notifications: {} } };
    expect(await server.handleMessage(direct, { connId: 'direct' })).toEqual(unknown(4));
    expect(server.stats().listens).toBe(0);
  });

  test('the stream messages are plain JSON: the marks the pipeline reads do not serialise', () => {
    const ts = newTestScheduler();
    const seen: unknown[] = [];
    ts.run(({ hot }) => {
      const server = listenServer(ts);
      server.connect('c', hot('-l', { l: listen(1, { toolsListChanged: true }) }), { transport: 'memory' }).subscribe((m) => seen.push(m));
    });
    expect(JSON.parse(JSON.stringify(seen))).toEqual([ack(1, { toolsListChanged: true })]);
  });
});
