import { afterEach, describe, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { ConfigError, createServer, Registry } from '../../lib/index.js';
import { serveWebSocket } from '../../transports/ws/serve-websocket.js';
import { INITIALIZE, closeAll, closeEvent, guardedServer, inbox, listen, openClient, virtualClock } from './helpers.js';

afterEach(closeAll);

const settle = { timeout: 2000, interval: 5 };

describe('a socket is one connection', () => {
  test('two sockets are two connections; closing one frees it', async () => {
    const server = guardedServer();
    const { url, transport } = await listen(server);
    const a = await openClient(url);
    await openClient(url);
    expect(server.stats().connections).toBe(2);
    expect(transport.connections).toBe(2);
    a.close();
    await vi.waitFor(() => expect(server.stats().connections).toBe(1), settle);
    expect(transport.connections).toBe(1);
  });

  test('closing the socket drops its parked call and aborts its running worker', async () => {
    const registry = new Registry();
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.registerTool({ name: 'approve-me', handler: () => 'ran' });
    registry.registerTool({
      name: 'slow',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          started();
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            resolve('late');
          });
        }),
    });
    const server = guardedServer({ registry, authorizer: (name) => (name === 'approve-me' ? { ask: 'ok?' } : 'allow') });
    const { url } = await listen(server);
    const socket = await openClient(url);
    const messages = inbox(socket);
    socket.send(JSON.stringify({ ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: { elicitation: {} } } }));
    await messages.next();
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'park', method: 'tools/call', params: { name: 'approve-me' } }));
    expect(await messages.next()).toMatchObject({ method: 'elicitation/create' });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 'run', method: 'tools/call', params: { name: 'slow' } }));
    await running;
    expect(server.stats()).toMatchObject({ parked: 1, inFlight: 1, connections: 1 });
    socket.close();
    await vi.waitFor(() => expect(server.stats()).toMatchObject({ parked: 0, inFlight: 0, connections: 0 }), settle);
    expect(aborted).toBe(true);
  });

  test('close() ends every socket with 1001 and refuses new upgrades', async () => {
    const server = guardedServer();
    const { url, transport } = await listen(server);
    const socket = await openClient(url);
    const closed = closeEvent(socket);
    await transport.close();
    expect(await closed).toEqual({ code: 1001, reason: 'server shutting down' });
    expect(server.stats().connections).toBe(0);
    const late = new WebSocket(url, 'mcp');
    const failure = await new Promise<Error>((resolve) => late.on('error', resolve));
    expect(failure.message).toMatch(/ECONNREFUSED/);
  });

  test('close() terminates a peer that does not finish the close handshake once the grace runs out', async () => {
    const clock = virtualClock();
    const server = guardedServer({ scheduler: clock });
    const { url, transport } = await listen(server, { closeGraceMs: 500 });
    const socket = await openClient(url);
    (socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
    const closing = transport.close();
    expect(server.stats().connections).toBe(0);
    clock.advance(499);
    expect(transport.connections).toBe(1);
    clock.advance(1);
    await closing;
    expect(transport.connections).toBe(0);
  });
});

describe('slow consumer', () => {
  test('a peer that stops reading is closed with 1013 once its buffer passes maxBufferedBytes', async () => {
    // A virtual clock nobody advances: the close grace never runs, so the paused peer can still read its close frame.
    const server = guardedServer({ scheduler: virtualClock() });
    const { url } = await listen(server, { maxBufferedBytes: 64 * 1024 });
    const socket = await openClient(url);
    const tcp = (socket as unknown as { _socket: import('node:net').Socket })._socket;
    tcp.pause();
    const chunk = 'x'.repeat(128 * 1024);
    let pushed = 0;
    while (server.stats().connections > 0 && pushed < 400) {
      server.notify('notifications/message', { level: 'info', data: chunk });
      pushed += 1;
    }
    expect(server.stats().connections).toBe(0);
    expect(pushed).toBeLessThan(400);
    const closed = closeEvent(socket);
    tcp.resume();
    const { code, reason } = await closed;
    expect(code).toBe(1013);
    expect(reason).toContain('slow consumer');
  });

  test('a peer that keeps reading is not closed', async () => {
    const server = guardedServer();
    const { url } = await listen(server, { maxBufferedBytes: 256 * 1024 });
    const socket = await openClient(url);
    const messages = inbox(socket);
    for (let i = 0; i < 20; i += 1) {
      server.notify('notifications/message', { level: 'info', data: 'y'.repeat(64 * 1024) });
      await messages.next();
    }
    expect(socket.readyState).toBe(WebSocket.OPEN);
    expect(server.stats().connections).toBe(1);
  });

  test('one message larger than the limit reaches a reader that keeps up', async () => {
    const server = guardedServer();
    const { url } = await listen(server, { maxBufferedBytes: 16 * 1024 });
    const socket = await openClient(url);
    const messages = inbox(socket);
    // Bigger than the kernel's socket buffers, so most of it is still queued in user space right after the send.
    const size = 24 * 1024 * 1024;
    for (let i = 0; i < 2; i += 1) {
      server.notify('notifications/message', { level: 'info', data: 'z'.repeat(size) });
      expect(((await messages.next(5000)).params as { data: string }).data).toHaveLength(size);
    }
    expect(socket.readyState).toBe(WebSocket.OPEN);
  });
});

describe('boot guard and options', () => {
  test('refuses to listen without chosen authorization outside development', async () => {
    const server = createServer();
    await expect(serveWebSocket(server, { port: 0, env: { NODE_ENV: 'production' } })).rejects.toThrow(/authoriz/i);
  });

  test('requireAuthorization: false serves an unguarded server explicitly', async () => {
    const server = createServer();
    const { url } = await listen(server, { env: { NODE_ENV: 'production' }, requireAuthorization: false });
    await openClient(url);
    expect(server.stats().connections).toBe(1);
  });

  test('NODE_ENV=development serves an unguarded server', async () => {
    const { url } = await listen(createServer(), { env: { NODE_ENV: 'development' } });
    await openClient(url);
  });

  test.each([
    [{ port: -1 }, 'port'],
    [{ port: 0, maxPayload: 0 }, 'maxPayload'],
    [{ port: 0, maxBufferedBytes: 1.5 }, 'maxBufferedBytes'],
    [{ port: 0, pingIntervalMs: 0 }, 'pingIntervalMs'],
    [{ port: 0, path: 'ws' }, 'path'],
    [{ port: 0, allowedHosts: ['ok', ''] }, 'allowedHosts'],
    [{ port: 0, allowedOrigins: 'localhost' }, 'allowedOrigins'],
    [{ port: 0, pingInterval: 1000 }, 'pingInterval'],
  ])('refuses %j naming %s', async (options, option) => {
    const failure = await serveWebSocket(guardedServer(), options as never).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).option).toBe(option);
  });
});
