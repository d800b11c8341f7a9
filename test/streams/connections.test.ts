/**
 * ConnectionState makes its push channel, background work and URI set on
 * first use; what a connection receives, and when its work ends, is the same
 * as with them made up front: pushes reach every receiver in the order they
 * attached, nothing after the end, work added after the end ends at once,
 * and the server's exit cleanup runs once per exit, before exits$.
 */
import { describe, expect, test } from 'vitest';
import { Subscription } from 'rxjs';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { notification } from '../../lib/protocol/jsonrpc.js';
import { Connections, type ConnectionState } from '../../streams/state/connections.js';

const ping = (n: number): OutboundMessage => notification('notifications/progress', { progress: n });
const progressOf = (m: OutboundMessage) => (m as unknown as { params: { progress: number } }).params.progress;

describe('ConnectionState', () => {
  test('a first receiver, another receiver and a pushes subscriber each get every push, in the order they attached', () => {
    const connections = new Connections();
    const state = connections.attach('c', 'memory');
    const seen: string[] = [];
    const first = (m: OutboundMessage) => seen.push(`first ${progressOf(m)}`);
    const second = (m: OutboundMessage) => seen.push(`second ${progressOf(m)}`);
    const firstHandle = state.receive(first);
    const secondHandle = state.receive(second);
    state.pushes.subscribe((m) => seen.push(`third ${progressOf(m)}`));
    expect(firstHandle).toBeUndefined();
    expect(secondHandle).toBeInstanceOf(Subscription);
    expect(connections.push('c', ping(1))).toBe(true);
    state.unreceive(first, firstHandle);
    state.unreceive(second, secondHandle);
    connections.push('c', ping(2));
    expect(seen).toEqual(['first 1', 'second 1', 'third 1', 'third 2']);
  });

  test('once a subscriber holds pushes, a receiver is subscribed after it (order kept)', () => {
    const connections = new Connections();
    const state = connections.attach('c', 'memory');
    const seen: string[] = [];
    state.pushes.subscribe(() => seen.push('subscriber'));
    const receive = () => seen.push('receiver');
    expect(state.receive(receive)).toBeInstanceOf(Subscription);
    connections.push('c', ping(1));
    expect(seen).toEqual(['subscriber', 'receiver']);
  });

  test('the end: no push reaches a receiver, pushes complete (also for a subscriber that comes later), background work ends', () => {
    const connections = new Connections();
    const state = connections.attach('c', 'memory');
    const received: OutboundMessage[] = [];
    state.receive((m) => received.push(m));
    let torn = 0;
    state.background.add(() => (torn += 1));
    connections.detach(state);
    expect(torn).toBe(1);
    expect(connections.push('c', ping(1))).toBe(false);
    state.deliver(ping(2));
    expect(received).toEqual([]);
    let completed = false;
    state.pushes.subscribe({ complete: () => (completed = true) });
    expect(completed).toBe(true);
    // Work added to an ended connection ends at once instead of outliving it.
    state.background.add(() => (torn += 1));
    expect(torn).toBe(2);
  });

  test('an ended connection with no push channel yet: a receiver is told nothing and left with no slot', () => {
    const connections = new Connections();
    const state = connections.attach('c', 'memory');
    connections.detach(state);
    const received: OutboundMessage[] = [];
    const handle = state.receive((m) => received.push(m));
    expect(handle?.closed).toBe(true);
    state.deliver(ping(1));
    expect(received).toEqual([]);
  });

  test('resource subscriptions: read as empty before the first, counted across connections, released at the end', () => {
    const connections = new Connections();
    const a = connections.attach('a', 'memory');
    const b = connections.attach('b', 'memory');
    expect(a.resourceSubscriptions.size).toBe(0);
    connections.subscribeResource(a, 'file:///x');
    connections.subscribeResource(a, 'file:///x');
    connections.subscribeResource(a, 'file:///y');
    connections.subscribeResource(b, 'file:///x');
    expect([...a.resourceSubscriptions]).toEqual(['file:///x', 'file:///y']);
    expect(b.resourceSubscriptions.has('file:///y')).toBe(false);
    expect(connections.subscriptions).toBe(3);
    connections.unsubscribeResource(b, 'file:///x');
    connections.unsubscribeResource(b, 'file:///x');
    expect(connections.subscriptions).toBe(2);
    connections.detach(a);
    expect(connections.subscriptions).toBe(0);
    expect(a.resourceSubscriptions.size).toBe(0);
    // A gone connection's state takes no more.
    connections.subscribeResource(a, 'file:///z');
    expect(connections.subscriptions).toBe(0);
  });

  test('onExit: once per exit (the last subscriber out), with the state, before exits$', () => {
    const order: string[] = [];
    const connections = new Connections((state: ConnectionState) => order.push(`onExit ${state.connId} ${state.peer}`));
    connections.exits$.subscribe((connId) => order.push(`exits$ ${connId}`));
    const first = connections.attach('c', 'http', 'addr:1');
    const second = connections.attach('c', 'http');
    connections.detach(first);
    expect(order).toEqual([]);
    connections.detach(second);
    expect(order).toEqual(['onExit c addr:1', 'exits$ c']);
  });
});
