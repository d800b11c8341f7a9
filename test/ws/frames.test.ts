import { afterEach, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { closeAll, closeEvent, guardedServer, inbox, listen, openClient } from './helpers.js';

afterEach(closeAll);

test('bad JSON is answered -32700 and the connection stays', async () => {
  const { url } = await listen(guardedServer());
  const socket = await openClient(url);
  const messages = inbox(socket);
  socket.send('{"jsonrpc":"2.0",');
  const reply = await messages.next();
  expect(reply).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }));
  expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
});

test('a binary frame is answered -32700 and the connection stays', async () => {
  const { url } = await listen(guardedServer());
  const socket = await openClient(url);
  const messages = inbox(socket);
  socket.send(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })), { binary: true });
  const reply = await messages.next();
  expect(reply).toMatchObject({ id: null, error: { code: -32700 } });
  expect(String((reply.error as { message: string }).message)).toContain('binary');
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
  expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
});

test('JSON that is not a JSON-RPC object reaches the envelope checks (-32600)', async () => {
  const { url } = await listen(guardedServer());
  const socket = await openClient(url);
  const messages = inbox(socket);
  socket.send('[1,2]');
  expect(await messages.next()).toMatchObject({ id: null, error: { code: -32600 } });
});

test('a message over maxPayload closes the socket with 1009 and frees the connection', async () => {
  const server = guardedServer();
  const { url } = await listen(server, { maxPayload: 1024 });
  const socket = await openClient(url);
  const closed = closeEvent(socket);
  socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2000) } }));
  expect((await closed).code).toBe(1009);
  expect(server.stats().connections).toBe(0);
});

test('a message just under maxPayload is served', async () => {
  const { url } = await listen(guardedServer(), { maxPayload: 1024 });
  const socket = await openClient(url);
  const messages = inbox(socket);
  const base = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: '' } } });
  socket.send(base.replace('"pad":""', `"pad":"${'x'.repeat(1024 - base.length)}"`));
  expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  expect(socket.readyState).toBe(WebSocket.OPEN);
});
