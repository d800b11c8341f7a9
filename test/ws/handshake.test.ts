import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { serveWebSocket } from '../../transports/ws/serve-websocket.js';
import { closeAll, guardedServer, inbox, listen, openClient, rawClient, refusedStatus } from './helpers.js';

afterEach(closeAll);

describe('subprotocol', () => {
  test('a client offering mcp gets mcp', async () => {
    const { url } = await listen(guardedServer());
    const socket = await openClient(url, ['other', 'mcp']);
    expect(socket.protocol).toBe('mcp');
  });

  test('a client offering no subprotocol is accepted', async () => {
    const { url } = await listen(guardedServer());
    const socket = await openClient(url, []);
    expect(socket.protocol).toBe('');
    const messages = inbox(socket);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
  });

  test('a client offering only other subprotocols is refused with 400', async () => {
    const server = guardedServer();
    const { url } = await listen(server);
    const refused = await refusedStatus(rawClient(url, ['graphql-ws']));
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('mcp');
    expect(server.stats().connections).toBe(0);
  });
});

describe('Host and Origin', () => {
  test('a foreign Origin is refused with 403', async () => {
    const server = guardedServer();
    const { url } = await listen(server);
    const refused = await refusedStatus(rawClient(url, 'mcp', { origin: 'https://evil.example' }));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Origin');
    expect(server.stats().connections).toBe(0);
  });

  test('an opaque "null" Origin is refused', async () => {
    const { url } = await listen(guardedServer());
    expect((await refusedStatus(rawClient(url, 'mcp', { origin: 'null' }))).status).toBe(403);
  });

  test('a loopback Origin is accepted, and so is a listed one', async () => {
    const { url } = await listen(guardedServer(), { allowedOrigins: ['localhost', 'https://app.example'] });
    await openClient(url, 'mcp', { origin: 'http://localhost:5173' });
    await openClient(url, 'mcp', { origin: 'https://app.example' });
    expect((await refusedStatus(rawClient(url, 'mcp', { origin: 'http://app.example' }))).status).toBe(403);
  });

  test('a Host header outside the allow-list is refused with 403 (DNS rebinding)', async () => {
    const { url } = await listen(guardedServer());
    const refused = await refusedStatus(rawClient(url, 'mcp', { headers: { host: 'attacker.example:80' } }));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Host');
  });

  test('allowedHosts admits a listed name and null disables the check', async () => {
    const listed = await listen(guardedServer(), { allowedHosts: ['mcp.internal'] });
    await openClient(listed.url, 'mcp', { headers: { host: 'mcp.internal:9000' } });
    expect((await refusedStatus(rawClient(listed.url, 'mcp'))).status).toBe(403);
    const open = await listen(guardedServer(), { allowedHosts: null });
    await openClient(open.url, 'mcp', { headers: { host: 'anything.example' } });
  });
});

describe('listening and attaching', () => {
  test('listen mode with a path refuses other paths with 404 and answers plain HTTP with 426', async () => {
    const { url } = await listen(guardedServer(), { path: '/mcp' });
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect((await refusedStatus(rawClient(url.replace('/mcp', '/elsewhere')))).status).toBe(404);
    await openClient(url);
    const response = await fetch(url.replace('ws://', 'http://'));
    expect(response.status).toBe(426);
    await response.text();
  });

  test('attached to an http server it shares the port: its path upgrades, HTTP and other upgrades stay with their owners', async () => {
    const httpServer = createHttpServer((_req, res) => res.end('plain http'));
    const otherUpgrades: string[] = [];
    httpServer.on('upgrade', (req, socket) => {
      if (req.url === '/ws') return;
      otherUpgrades.push(req.url ?? '');
      socket.end('HTTP/1.1 418 I am a teapot\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
    httpServer.listen(0, '127.0.0.1');
    await once(httpServer, 'listening');
    const server = guardedServer();
    const transport = await serveWebSocket(server, { server: httpServer });
    try {
      const port = (httpServer.address() as AddressInfo).port;
      expect(transport.url).toBe(`ws://127.0.0.1:${port}/ws`);
      const socket = await openClient(transport.url!);
      const messages = inbox(socket);
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
      expect(await messages.next()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('plain http');
      expect((await refusedStatus(rawClient(`ws://127.0.0.1:${port}/other`))).status).toBe(418);
      expect(otherUpgrades).toEqual(['/other']);
      await transport.close();
      expect(socket.readyState).toBe(WebSocket.CLOSED);
      // The shared server is not ours to close.
      expect(httpServer.listening).toBe(true);
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('plain http');
    } finally {
      await transport.close();
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    }
  });

  test('an upgrade whose handshake is malformed is refused by ws, not crashed on', async () => {
    const { url } = await listen(guardedServer());
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
      req.on('response', (res) => resolve(res.statusCode ?? 0));
      req.on('upgrade', () => reject(new Error('upgraded without a key')));
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});
