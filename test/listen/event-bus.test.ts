/**
 * The event bus: InMemoryEventBus delivers synchronously in order and a
 * throwing listener neither stops the others nor escapes; the server
 * publishes list changes (coalesced) and resources/updated on it, and only
 * those; a listen stream hears a change published by another server on a
 * shared bus (the seam a multi-process bus plugs into); a bus that throws
 * cannot take the publisher or the server with it; the options are checked.
 */
import { describe, expect, test, vi } from 'vitest';
import { ConfigError, createServer, InMemoryEventBus, type BusEvent, type Logger, type ServerEventBus } from '../../lib/index.js';
import { newTestScheduler } from '../marbles/harness.js';
import { ack, listen, listenRegistry, listenServer, modernOnly, toolsChanged, updated } from './harness.js';

function recordingLogger(): Logger & { errors: unknown[][] } {
  const errors: unknown[][] = [];
  return { errors, debug: () => {}, info: () => {}, warn: () => {}, error: (obj, msg) => void errors.push([obj, msg]) };
}

describe('InMemoryEventBus', () => {
  test('delivers synchronously to every listener in subscription order; unsubscribe stops delivery', () => {
    const bus = new InMemoryEventBus();
    const seen: string[] = [];
    const offA = bus.subscribe((e) => seen.push(`a:${e.type}`));
    bus.subscribe((e) => seen.push(`b:${e.type}`));
    bus.publish({ type: 'tools_list_changed' });
    offA();
    offA();
    bus.publish({ type: 'resource_updated', uri: 'mem://a' });
    expect(seen).toEqual(['a:tools_list_changed', 'b:tools_list_changed', 'b:resource_updated']);
    expect(bus.size).toBe(1);
  });

  test('a throwing listener does not stop the others and never escapes; it is logged', () => {
    const logger = recordingLogger();
    const bus = new InMemoryEventBus({ logger });
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('boom');
    });
    bus.subscribe((e) => seen.push(e.type));
    expect(() => bus.publish({ type: 'prompts_list_changed' })).not.toThrow();
    expect(seen).toEqual(['prompts_list_changed']);
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]?.[1]).toBe('an event bus listener threw');
  });

  test('a listener added during a delivery hears the next event; one removed during it hears nothing more', () => {
    const bus = new InMemoryEventBus();
    const seen: string[] = [];
    let offC: () => void = () => {};
    bus.subscribe((e) => {
      seen.push(`a:${e.type}`);
      if (e.type === 'tools_list_changed') {
        bus.subscribe((later) => seen.push(`late:${later.type}`));
        offC();
      }
    });
    offC = bus.subscribe((e) => seen.push(`c:${e.type}`));
    bus.publish({ type: 'tools_list_changed' });
    bus.publish({ type: 'prompts_list_changed' });
    expect(seen).toEqual(['a:tools_list_changed', 'a:prompts_list_changed', 'late:prompts_list_changed']);
  });

  test('the same function subscribed twice is two subscriptions, each ended by its own function', () => {
    const bus = new InMemoryEventBus();
    const listener = vi.fn();
    const off1 = bus.subscribe(listener);
    bus.subscribe(listener);
    bus.publish({ type: 'tools_list_changed' });
    off1();
    bus.publish({ type: 'tools_list_changed' });
    expect(listener).toHaveBeenCalledTimes(3);
  });
});

describe('the server on the bus', () => {
  test('publishes coalesced list changes and resources/updated, nothing else; legacy broadcasts are unchanged', () => {
    const ts = newTestScheduler();
    const bus = new InMemoryEventBus();
    const events: { frame: number; event: BusEvent }[] = [];
    bus.subscribe((event) => events.push({ frame: ts.now(), event }));
    ts.run(({ expectObservable, cold }) => {
      const server = createServer({ registry: listenRegistry(), scheduler: ts, eventBus: bus });
      ts.schedule(() => {
        server.registry.registerTool({ name: 'x', handler: () => 'x' });
        server.registry.registerTool({ name: 'y', handler: () => 'y' });
        server.registry.registerPrompt({ name: 'p', get: () => 'p' });
      }, 2);
      ts.schedule(() => {
        server.resourceUpdated('mem://a');
        server.notify('notifications/message', { level: 'error', data: 'x' });
        server.notify('notifications/custom');
        server.notify('notifications/resources/updated', { uri: 42 });
      }, 6);
      // A legacy connection still receives the same untagged broadcasts as before.
      expectObservable(server.connect('legacy', cold('-'), { transport: 'memory' })).toBe('--(tp)(mc)', {
        t: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
        p: { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
        m: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'x' } },
        c: { jsonrpc: '2.0', method: 'notifications/custom' },
      });
    });
    expect(events).toEqual([
      { frame: 2, event: { type: 'tools_list_changed' } },
      { frame: 2, event: { type: 'prompts_list_changed' } },
      { frame: 6, event: { type: 'resource_updated', uri: 'mem://a' } },
    ]);
  });

  test('a throwing bus listener beside the listen streams: the streams still get every event', () => {
    const ts = newTestScheduler();
    const logger = recordingLogger();
    const bus = new InMemoryEventBus({ logger });
    bus.subscribe(() => {
      throw new Error('first listener');
    });
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { eventBus: bus });
      ts.schedule(() => bus.subscribe(() => {
        throw new Error('late listener');
      }), 2);
      ts.schedule(() => server.registry.registerTool({ name: 'x', handler: () => 'x' }), 3);
      ts.schedule(() => server.resourceUpdated('mem://a'), 4);
      const filter = { toolsListChanged: true, resourceSubscriptions: ['mem://a'] };
      const inbound = hot('-l', { l: listen(1, filter) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-tu', {
        a: ack(1, filter),
        t: toolsChanged(1),
        u: updated(1, 'mem://a'),
      });
    });
    expect(logger.errors.map(([, msg]) => msg)).toEqual(Array(4).fill('an event bus listener threw'));
  });

  test('two servers sharing one bus: a change on one reaches the other\'s listen streams (the multi-process seam)', () => {
    const ts = newTestScheduler();
    const bus = new InMemoryEventBus();
    ts.run(({ hot, expectObservable }) => {
      const a = listenServer(ts, { eventBus: bus });
      const b = listenServer(ts, { eventBus: bus });
      ts.schedule(() => a.resourceUpdated('mem://a'), 3);
      ts.schedule(() => a.registry.registerTool({ name: 'x', handler: () => 'x' }), 4);
      const filter = { toolsListChanged: true, resourceSubscriptions: ['mem://a'] };
      const inbound = hot('-l', { l: listen('s', filter) });
      expectObservable(b.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a-ut', {
        a: ack('s', filter),
        u: updated('s', 'mem://a'),
        t: toolsChanged('s'),
      });
    });
  });

  test('a foreign bus delivering unknown events: they are ignored', () => {
    const ts = newTestScheduler();
    const bus = new InMemoryEventBus();
    ts.run(({ hot, expectObservable }) => {
      const server = listenServer(ts, { eventBus: bus });
      ts.schedule(() => {
        bus.publish({ type: 'resource_updated' } as unknown as BusEvent);
        bus.publish({ type: 'toString' } as unknown as BusEvent);
        bus.publish(null as unknown as BusEvent);
      }, 3);
      const inbound = hot('-l', { l: listen(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-a', {
        a: ack(1, { toolsListChanged: true, resourceSubscriptions: ['mem://a'] }),
      });
    });
  });

  test('a bus whose publish throws: notify and registry changes go on, legacy connections still get theirs, it is logged', () => {
    const ts = newTestScheduler();
    const logger = recordingLogger();
    const bus: ServerEventBus = {
      publish: () => {
        throw new Error('bus down');
      },
      subscribe: () => () => {},
    };
    ts.run(({ expectObservable, cold }) => {
      const server = createServer({ registry: listenRegistry(), scheduler: ts, eventBus: bus, logger });
      ts.schedule(() => server.registry.registerTool({ name: 'x', handler: () => 'x' }), 2);
      ts.schedule(() => expect(() => server.notify('notifications/prompts/list_changed')).not.toThrow(), 3);
      expectObservable(server.connect('legacy', cold('-'), { transport: 'memory' })).toBe('--tp', {
        t: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
        p: { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
      });
    });
    expect(logger.errors.map(([, msg]) => msg)).toEqual(['the event bus threw on publish', 'the event bus threw on publish']);
  });

  test('a bus whose subscribe throws: the listen is refused (-32603 event_bus_failed) and nothing is kept', () => {
    const ts = newTestScheduler();
    const logger = recordingLogger();
    const bus: ServerEventBus = {
      publish: () => {},
      subscribe: () => {
        throw new Error('no subscriber for you');
      },
    };
    let server!: ReturnType<typeof listenServer>;
    ts.run(({ hot, expectObservable }) => {
      server = listenServer(ts, { eventBus: bus, logger });
      const inbound = hot('-l', { l: listen(1, {}) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' })).toBe('-r', {
        r: {
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32603,
            message: 'subscriptions are unavailable: the event bus refused a subscriber',
            data: { error: 'event_bus_failed' },
          },
        },
      });
    });
    expect(server.stats().listens).toBe(0);
    expect(logger.errors.map(([, msg]) => msg)).toEqual(['the event bus threw on subscribe: subscriptions/listen refused']);
  });

  test('the bus is subscribed once for all streams, and only while one is open', () => {
    const ts = newTestScheduler();
    const bus = new InMemoryEventBus();
    const sizes: number[][] = [];
    ts.run(({ hot }) => {
      const server = listenServer(ts, { eventBus: bus });
      // Sampled at the start of a frame, before that frame's messages.
      for (const frame of [0, 2, 3, 5]) ts.schedule(() => sizes.push([server.stats().listens, bus.size]), frame);
      server.connect('c', hot('-ab-|', { a: listen(1, {}), b: listen(2, {}) }), { transport: 'memory' }).subscribe();
    });
    expect(sizes).toEqual([[0, 0], [1, 1], [2, 1], [0, 0]]);
  });
});

describe('listen options', () => {
  test.each([
    [{ eventBus: {} }, 'eventBus'],
    [{ eventBus: { publish: () => {} } }, 'eventBus'],
    [{ maxListens: 0 }, 'maxListens'],
    [{ maxListens: 1.5 }, 'maxListens'],
    [{ maxListensPerConnection: -1 }, 'maxListensPerConnection'],
    [{ maxListens: 4, maxListensPerConnection: 5 }, 'maxListensPerConnection'],
  ])('%j is refused naming %s', (options, option) => {
    try {
      createServer(options as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).option).toBe(option);
    }
  });

  test('defaults: 1024 streams on the server, 16 per connection (never above maxListens)', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const server = createServer({ scheduler: ts, maxListens: 3 });
      const inbound = hot('-abcd', { a: listen(1, {}), b: listen(2, {}), c: listen(3, {}), d: listen(4, {}) });
      expectObservable(server.connect('c', inbound, { transport: 'memory' }).pipe(modernOnly)).toBe('-abcd', {
        a: ack(1, {}),
        b: ack(2, {}),
        c: ack(3, {}),
        d: expect.objectContaining({ id: 4, error: expect.objectContaining({ message: 'too many subscriptions on this connection (max 3)' }) }),
      });
    });
  });
});
