/**
 * A resource whose content is an Observable (`registerResource({ uri, name,
 * content$ })`) on a virtual clock: a read answers the latest value (a read
 * before the first waits for it), and each value sends one
 * notifications/resources/updated to the connections that subscribed the
 * URI, from every server given the registry. Only the latest value is kept.
 */
import { NEVER } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { silentLogger } from '../../lib/logger.js';
import { ack, listen, onStream, updated as onListen } from '../listen/harness.js';
import { connectMarbles, newTestScheduler, readResource, type Msg } from './harness.js';

const URI = 'app://counter';
const subscribe = (id: number, uri = URI): Msg => ({ jsonrpc: '2.0', id, method: 'resources/subscribe', params: { uri } });
const updated = (uri = URI) => ({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
const contents = (id: number, text: string) => ({ jsonrpc: '2.0', id, result: { contents: [{ uri: URI, text }] } });
const ok = (id: number) => ({ jsonrpc: '2.0', id, result: {} });

describe('an observable resource', () => {
  test('a read answers the latest value; each value is one resources/updated to the subscribed connection only', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const content$ = hot('-a--b-c---', { a: 'one', b: 'two', c: 'three' });
      const registry = new Registry().registerResource({ uri: URI, name: 'counter', content$ });
      const server = createServer({ registry, scheduler: ts });
      const inbound = hot('s-1--2---3', { s: subscribe(0), 1: readResource(1, URI), 2: readResource(2, URI), 3: readResource(3, URI) });
      expectObservable(connectMarbles(server, 'A', inbound)).toBe('su1-u2u--3', {
        s: ok(0),
        u: updated(),
        1: contents(1, 'one'),
        2: contents(2, 'two'),
        3: contents(3, 'three'),
      });
      expectObservable(connectMarbles(server, 'B', NEVER)).toBe('----------');
      // Subscribed once, at registration, and held while registered.
      expectSubscriptions(content$.subscriptions).toBe('^');
    });
  });

  test('a modern subscriptions/listen stream naming the URI hears each value, tagged with its subscription', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const content$ = hot('---a--b', { a: 'one', b: 'two' });
      const registry = new Registry().registerResource({ uri: URI, name: 'counter', content$ });
      const server = createServer({ registry, scheduler: ts });
      const inbound = hot('-l', { l: listen(9, { resourceSubscriptions: [URI] }) });
      expectObservable(connectMarbles(server, 'M', inbound).pipe(onStream(9))).toBe('-a-u--u', {
        a: ack(9, { resourceSubscriptions: [URI] }),
        u: onListen(9, URI),
      });
    });
  });

  test('values in one frame are one resources/updated each: nothing is coalesced or buffered', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const content$ = hot('--(abc)-', { a: '1', b: '2', c: '3' });
      const registry = new Registry().registerResource({ uri: URI, name: 'counter', content$ });
      const server = createServer({ registry, scheduler: ts });
      const inbound = hot('s--------r', { s: subscribe(0), r: readResource(1, URI) });
      expectObservable(connectMarbles(server, 'A', inbound)).toBe('s-(uuu)--r', { s: ok(0), u: updated(), r: contents(1, '3') });
    });
  });

  test('a read before the first value waits for it', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const content$ = hot('-----a', { a: 'first' });
      const registry = new Registry().registerResource({ uri: URI, name: 'counter', content$ });
      const server = createServer({ registry, scheduler: ts });
      expectObservable(connectMarbles(server, 'A', hot('-r', { r: readResource(1, URI) }))).toBe('-----r', { r: contents(1, 'first') });
    });
  });

  test('every server given the registry sends it, each to its own subscribers', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable }) => {
      const content$ = hot('---a', { a: 'x' });
      const registry = new Registry().registerResource({ uri: URI, name: 'counter', content$ });
      const one = createServer({ registry, scheduler: ts });
      const two = createServer({ registry, scheduler: ts });
      expectObservable(connectMarbles(one, 'A', hot('s', { s: subscribe(0) }))).toBe('s--u', { s: ok(0), u: updated() });
      expectObservable(connectMarbles(two, 'B', hot('-s', { s: subscribe(0) }))).toBe('-s-u', { s: ok(0), u: updated() });
    });
  });

  test('unregistering stops content$; a closed server sends nothing more', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const content$ = hot('--a-b-c-d', { a: '1', b: '2', c: '3', d: '4' });
      const other$ = hot('--------x', { x: 'x' });
      const registry = new Registry()
        .registerResource({ uri: URI, name: 'counter', content$ })
        .registerResource({ uri: 'app://other', name: 'other', content$: other$ });
      const server = createServer({ registry, scheduler: ts });
      const inbound = hot('st', { s: subscribe(0), t: subscribe(1, 'app://other') });
      ts.schedule(() => registry.unregisterResource(URI), 5);
      ts.schedule(() => server.close(), 7);
      const listChanged = { jsonrpc: '2.0', method: 'notifications/resources/list_changed' };
      expectObservable(connectMarbles(server, 'A', inbound)).toBe('stu-ur', { s: ok(0), t: ok(1), u: updated(), r: listChanged });
      expectSubscriptions(content$.subscriptions).toBe('^----!');
    });
  });

  test('content$ failing makes reads fail (logged); a replacement with the same content$ keeps its subscription', () => {
    const ts = newTestScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const failing$ = hot('-a-#', { a: 'ok' });
      const kept$ = hot('-k---l', { k: 'k1', l: 'k2' });
      const registry = new Registry({ logger: silentLogger() })
        .registerResource({ uri: URI, name: 'counter', content$: failing$ })
        .registerResource({ uri: 'app://kept', name: 'kept', content$: kept$ });
      const server = createServer({ registry, scheduler: ts, logger: silentLogger() });
      ts.schedule(() => registry.registerResource({ uri: 'app://kept', name: 'kept', description: 'renamed', content$: kept$ }, { replace: true }), 2);
      const inbound = hot('--1-----2', { 1: readResource(1, URI), 2: readResource(2, URI) });
      const failed = { jsonrpc: '2.0', id: 2, error: expect.objectContaining({ code: -32603 }) };
      const listChanged = { jsonrpc: '2.0', method: 'notifications/resources/list_changed' };
      expectObservable(connectMarbles(server, 'A', inbound)).toBe('--(1r)--2', { 1: contents(1, 'ok'), r: listChanged, 2: failed });
      expectSubscriptions(kept$.subscriptions).toBe('^');
    });
  });
});
