/**
 * Contract: logging/setLevel sets a per-connection threshold, and that
 * connection's notifications/message are filtered by RFC 5424 severity.
 */
import { describe, expect, test } from 'vitest';
import { LOG_LEVELS } from '../../lib/index.js';
import { Peer, collect, makeServer, rpc } from './helpers.js';

const SEVERITY_ORDER = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function logAll(server: ReturnType<typeof makeServer>) {
  for (const level of SEVERITY_ORDER) server.notify('notifications/message', { level, logger: 'app', data: `at ${level}` });
}

const levelsSeen = (peer: Peer) => peer.notifications('notifications/message').map((m) => m.params.level);

describe('notifications/message filtering', () => {
  test('the levels are the eight RFC 5424 severities, least severe first', () => {
    expect([...LOG_LEVELS]).toEqual(SEVERITY_ORDER);
  });

  test('before any setLevel a connection gets every level', async () => {
    const server = makeServer();
    const peer = new Peer(server);
    logAll(server);
    expect(levelsSeen(peer)).toEqual(SEVERITY_ORDER);
    expect(peer.notifications('notifications/message')[0]).toStrictEqual({
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'debug', logger: 'app', data: 'at debug' },
    });
    peer.close();
  });

  test.each(SEVERITY_ORDER.map((level, index) => [level, SEVERITY_ORDER.slice(index)] as const))(
    'after setLevel %s the connection gets that level and the more severe ones only',
    async (level, expected) => {
      const server = makeServer();
      const peer = new Peer(server);
      expect(await peer.call(1, 'logging/setLevel', { level })).toStrictEqual({ jsonrpc: '2.0', id: 1, result: {} });
      logAll(server);
      expect(levelsSeen(peer)).toEqual(expected);
      peer.close();
    },
  );

  test('the level is per connection: another connection keeps its own', async () => {
    const server = makeServer();
    const quiet = new Peer(server, { connId: 'quiet' });
    const chatty = new Peer(server, { connId: 'chatty' });
    const middling = new Peer(server, { connId: 'middling' });
    await quiet.call(1, 'logging/setLevel', { level: 'error' });
    await middling.call(1, 'logging/setLevel', { level: 'notice' });
    logAll(server);
    expect(levelsSeen(quiet)).toEqual(['error', 'critical', 'alert', 'emergency']);
    expect(levelsSeen(chatty)).toEqual(SEVERITY_ORDER);
    expect(levelsSeen(middling)).toEqual(['notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
    for (const p of [quiet, chatty, middling]) p.close();
  });

  test('setLevel can lower the threshold again', async () => {
    const server = makeServer();
    const peer = new Peer(server);
    await peer.call(1, 'logging/setLevel', { level: 'emergency' });
    server.notify('notifications/message', { level: 'info', data: 'dropped' });
    await peer.call(2, 'logging/setLevel', { level: 'info' });
    server.notify('notifications/message', { level: 'info', data: 'kept' });
    expect(peer.notifications('notifications/message').map((m) => m.params.data)).toEqual(['kept']);
    peer.close();
  });

  test('the threshold filters only notifications/message', async () => {
    const server = makeServer();
    const peer = new Peer(server);
    await peer.call(1, 'logging/setLevel', { level: 'emergency' });
    server.notify('notifications/tools/list_changed');
    server.notify('notifications/custom', { level: 'debug' });
    expect(peer.notifications().map((m) => m.method)).toEqual(['notifications/tools/list_changed', 'notifications/custom']);
    peer.close();
  });

  test('a direct caller setting the level of a subscribed connection filters that subscriber', async () => {
    const server = makeServer();
    const { messages, subscription } = collect(server, 'stdio-ish');
    await server.handleMessage(rpc(1, 'logging/setLevel', { level: 'warning' }), { connId: 'stdio-ish' });
    logAll(server);
    expect(messages.map((m) => m.params.level)).toEqual(['warning', 'error', 'critical', 'alert', 'emergency']);
    subscription.unsubscribe();
  });

  test('a reconnect under the same id starts at the default threshold again', async () => {
    const server = makeServer();
    const first = new Peer(server, { connId: 'again' });
    await first.call(1, 'logging/setLevel', { level: 'emergency' });
    first.close();
    const second = new Peer(server, { connId: 'again' });
    logAll(server);
    expect(levelsSeen(second)).toEqual(SEVERITY_ORDER);
    second.close();
  });
});
