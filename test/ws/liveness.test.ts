import { once } from 'node:events';
import { afterEach, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { closeAll, closeEvent, guardedServer, inbox, listen, openClient, virtualClock } from './helpers.js';

afterEach(closeAll);

test('pings on the server clock and terminates a socket that missed a pong', async () => {
  const clock = virtualClock();
  const server = guardedServer({ scheduler: clock });
  const { url } = await listen(server, { pingIntervalMs: 1000 });
  const silent = await openClient(url, 'mcp', { autoPong: false });
  const lively = await openClient(url);
  const livelyMessages = inbox(lively);
  const pings = { silent: 0, lively: 0 };
  silent.on('ping', () => (pings.silent += 1));
  lively.on('ping', () => (pings.lively += 1));

  // Nothing happens before the period.
  clock.advance(999);
  lively.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }));
  await livelyMessages.next();
  expect(pings).toEqual({ silent: 0, lively: 0 });

  clock.advance(1);
  await Promise.all([once(silent, 'ping'), once(lively, 'ping')]);
  // The lively client's pong precedes this request on the wire, so once it is answered the server has seen the pong.
  lively.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await livelyMessages.next();
  expect(silent.readyState).toBe(WebSocket.OPEN);
  expect(server.stats().connections).toBe(2);

  const silentClosed = closeEvent(silent);
  clock.advance(1000);
  expect((await silentClosed).code).toBe(1006);
  await vi.waitFor(() => expect(server.stats().connections).toBe(1), { timeout: 2000, interval: 5 });
  // The same tick pinged the lively client again instead of terminating it.
  await vi.waitFor(() => expect(pings.lively).toBe(2), { timeout: 2000, interval: 5 });
  expect(lively.readyState).toBe(WebSocket.OPEN);
  expect(pings.silent).toBe(1);
});

test('pingIntervalMs: null sends no pings', async () => {
  const clock = virtualClock();
  const server = guardedServer({ scheduler: clock });
  const { url } = await listen(server, { pingIntervalMs: null });
  const silent = await openClient(url, 'mcp', { autoPong: false });
  const messages = inbox(silent);
  let pinged = false;
  silent.on('ping', () => (pinged = true));
  clock.advance(120_000);
  silent.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await messages.next();
  expect(pinged).toBe(false);
  expect(silent.readyState).toBe(WebSocket.OPEN);
});
