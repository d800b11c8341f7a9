/**
 * A bus shared by several processes offers subscribeRemote (the events other
 * processes published): the server feeds its legacy connections from it, on
 * a virtual clock here with a fake shared bus. A remote list change reaches
 * every legacy connection, a remote resources/updated only those subscribed
 * to its URI, modern connections get neither (their listens hear the bus),
 * what the remote side sends is checked, and a local notify still goes out
 * once. A bus without subscribeRemote changes nothing.
 */
import { describe, expect, test } from 'vitest';
import { createServer, InMemoryEventBus, type BusEvent, type BusListener, type ServerEventBus } from '../../lib/index.js';
import { newTestScheduler } from '../marbles/harness.js';
import { listenRegistry } from './harness.js';

/** A shared bus as one process sees it: `arrive` is a publish from another process. */
class FakeSharedBus implements ServerEventBus {
  private readonly local = new InMemoryEventBus();
  private readonly remote = new InMemoryEventBus();
  publish(event: BusEvent): void {
    this.local.publish(event);
  }
  subscribe(listener: BusListener): () => void {
    return this.local.subscribe(listener);
  }
  subscribeRemote(listener: BusListener): () => void {
    return this.remote.subscribe(listener);
  }
  arrive(event: unknown): void {
    this.local.publish(event as BusEvent);
    this.remote.publish(event as BusEvent);
  }
  get remoteListeners(): number {
    return this.remote.size;
  }
}

const rpc = (id: unknown, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const INIT = rpc('i', 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1' } });
const MODERN = rpc('m', 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } });
const notifications = (messages: readonly unknown[]) => messages.filter((m) => typeof m === 'object' && m !== null && 'method' in m);

describe('remote bus events to legacy connections', () => {
  test('list changes to every legacy connection, resources/updated to its subscribers only, nothing to modern ones', () => {
    const ts = newTestScheduler();
    const bus = new FakeSharedBus();
    const seen: Record<string, unknown[]> = { sub: [], plain: [], modern: [] };
    ts.run(({ hot }) => {
      const server = createServer({ registry: listenRegistry(), scheduler: ts, eventBus: bus });
      server.connect('sub', hot('-ab', { a: INIT, b: rpc(1, 'resources/subscribe', { uri: 'mem://a' }) }), { transport: 'memory' }).subscribe((m) => seen.sub!.push(m));
      server.connect('plain', hot('-a', { a: INIT }), { transport: 'memory' }).subscribe((m) => seen.plain!.push(m));
      server.connect('modern', hot('-a', { a: MODERN }), { transport: 'memory' }).subscribe((m) => seen.modern!.push(m));
      ts.schedule(() => {
        bus.arrive({ type: 'tools_list_changed' });
        bus.arrive({ type: 'resource_updated', uri: 'mem://a' });
        bus.arrive({ type: 'resource_updated', uri: 'mem://b' });
        bus.arrive({ type: 'resource_updated', uri: 42 });
        bus.arrive({ type: 'nonsense' });
        bus.arrive('not even an object');
      }, 4);
    });
    expect(notifications(seen.sub!)).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://a' } },
    ]);
    expect(notifications(seen.plain!)).toStrictEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(notifications(seen.modern!)).toEqual([]);
  });

  test('a local notify goes out once, with its params as given; the server lets go of the bus on close', () => {
    const ts = newTestScheduler();
    const bus = new FakeSharedBus();
    const seen: unknown[] = [];
    let server!: ReturnType<typeof createServer>;
    ts.run(({ hot }) => {
      server = createServer({ registry: listenRegistry(), scheduler: ts, eventBus: bus });
      server.connect('c', hot('-ab', { a: INIT, b: rpc(1, 'resources/subscribe', { uri: 'mem://a' }) }), { transport: 'memory' }).subscribe((m) => seen.push(m));
      ts.schedule(() => server.notify('notifications/resources/updated', { uri: 'mem://a', title: 'kept locally' }), 4);
    });
    expect(notifications(seen)).toStrictEqual([{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://a', title: 'kept locally' } }]);
    expect(bus.remoteListeners).toBe(1);
    server.close();
    expect(bus.remoteListeners).toBe(0);
  });

  test('a bus whose subscribeRemote throws: logged, and the server still serves its own notifications', () => {
    const errors: unknown[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (_obj: unknown, msg?: string) => void errors.push(msg) };
    const bus: ServerEventBus = {
      publish() {},
      subscribe: () => () => {},
      subscribeRemote() {
        throw new Error('no remote today');
      },
    };
    const server = createServer({ registry: listenRegistry(), eventBus: bus, logger });
    const seen: unknown[] = [];
    server.subscribe((m) => seen.push(m), 'c');
    server.notify('notifications/tools/list_changed');
    expect(seen).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    expect(errors).toEqual(['the event bus threw on subscribeRemote: legacy connections hear this process only']);
  });

  test('subscribeRemote, when present, must be a function', () => {
    const bus = { publish() {}, subscribe: () => () => {}, subscribeRemote: 'yes' };
    expect(() => createServer({ eventBus: bus as unknown as ServerEventBus })).toThrow(/eventBus/);
  });
});
