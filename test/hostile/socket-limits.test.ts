/**
 * Finding: the HTTP listener had no connection cap and reaped idle sockets
 * late. 20,000 idle sockets exhausted the process's file descriptors, and
 * `/health`, MCP and WebSocket all failed until they closed; idle sockets
 * were reaped only after about 89 s (headers) and 329 s (a trickled body).
 * Now a listener we own caps its sockets, in all and per remote address,
 * and times out headers, bodies and idle keep-alive sockets in seconds, on
 * the server's scheduler (a virtual clock here).
 *
 * Per-address limits need several client addresses: on Linux every
 * 127.0.0.0/8 address is loopback, so client sockets bind to 127.0.0.2 and
 * up (`localAddress`) while the server listens on 127.0.0.1.
 */
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { ConfigError } from '../../lib/index.js';
import { serveWebSocket, type WebSocketTransport } from '../../transports/index.js';
import { eventually, initializeMessage, serve, virtualClock, type Served } from '../http/helpers.js';
import { guardedServer } from '../ws/helpers.js';

let served: Served | undefined;
let wsTransport: WebSocketTransport | undefined;
const opened: { destroy(): void }[] = [];

afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await wsTransport?.close();
  wsTransport = undefined;
  await served?.close();
  served = undefined;
});

interface RawSocket {
  readonly socket: Socket;
  closed: boolean;
  received: string;
}

/** A plain TCP socket to 127.0.0.1:port from `localAddress`; resolves once connected. */
async function rawSocket(port: number, localAddress = '127.0.0.1'): Promise<RawSocket> {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  opened.push(socket);
  const raw: RawSocket = { socket, closed: false, received: '' };
  socket.on('data', (chunk) => (raw.received += String(chunk)));
  socket.on('error', () => undefined);
  socket.on('close', () => (raw.closed = true));
  await once(socket, 'connect');
  return raw;
}

async function manySockets(count: number, port: number, localAddress: string): Promise<RawSocket[]> {
  const sockets: RawSocket[] = [];
  for (let i = 0; i < count; i += 1) sockets.push(await rawSocket(port, localAddress));
  return sockets;
}

const closedCount = (sockets: RawSocket[]) => sockets.filter((s) => s.closed).length;

/** Lets socket I/O that is already under way land (event-loop turns, no timed sleep). */
async function settle(turns = 50): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** One request on a socket of its own from `localAddress`; the status and body. */
function requestFrom(port: number, localAddress: string, options: { method?: string; path: string; body?: unknown }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress,
        agent: false,
        method: options.method ?? 'GET',
        path: options.path,
        headers: body === undefined ? {} : { 'content-type': 'application/json', accept: 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += String(chunk)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('socket caps', () => {
  test('idle sockets from one address are capped at its share; /health and MCP still answer other addresses', async () => {
    served = await serve({ scheduler: virtualClock().scheduler }, { maxSockets: 64, maxSocketsPerAddress: 16 });
    const port = served.http.port;
    const attack = await manySockets(40, port, '127.0.0.2');
    await eventually(() => closedCount(attack) >= 24);
    await settle();
    expect(closedCount(attack)).toBe(24);
    expect(attack.slice(0, 16).every((s) => !s.closed)).toBe(true);
    for (const address of ['127.0.0.1', '127.0.0.3']) {
      const health = await requestFrom(port, address, { path: '/health' });
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
    }
    const init = await requestFrom(port, '127.0.0.3', { method: 'POST', path: '/mcp', body: initializeMessage(1) });
    expect(init.status).toBe(200);
    // The attacker's own share comes back once it lets go.
    for (const s of attack) s.socket.destroy();
    await eventually(() => attack.every((s) => s.closed));
    await settle();
    expect((await requestFrom(port, '127.0.0.2', { path: '/health' })).status).toBe(200);
  });

  test('the server-wide cap holds however many addresses share the load', async () => {
    served = await serve({ scheduler: virtualClock().scheduler }, { maxSockets: 20, maxSocketsPerAddress: 10 });
    const port = served.http.port;
    const held = [...(await manySockets(10, port, '127.0.0.2')), ...(await manySockets(10, port, '127.0.0.3'))];
    const late = await manySockets(5, port, '127.0.0.4');
    await eventually(() => closedCount(late) === 5);
    await settle();
    expect(closedCount(held)).toBe(0);
  });
});

describe('socket timeouts on the server clock', () => {
  test('headers: a socket that has not sent a whole request head in headersTimeoutMs is answered 408 and closed', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { headersTimeoutMs: 2_000 });
    const silent = await rawSocket(served.http.port);
    const trickle = await rawSocket(served.http.port);
    trickle.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await settle();
    clock.advance(1_999);
    await settle();
    expect([silent.closed, trickle.closed]).toEqual([false, false]);
    clock.advance(1);
    await eventually(() => silent.closed && trickle.closed);
    expect(trickle.received).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
  });

  test('body: a request whose body has not arrived in bodyTimeoutMs is answered 408 and closed', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { bodyTimeoutMs: 3_000 });
    const trickle = await rawSocket(served.http.port);
    trickle.socket.write(
      'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":',
    );
    await settle();
    clock.advance(2_999);
    await settle();
    expect(trickle.closed).toBe(false);
    clock.advance(1);
    await eventually(() => trickle.closed);
    expect(trickle.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(trickle.received).toContain('"code":-32000');
  });

  test('idle: a keep-alive socket with no request in progress is closed after idleSocketTimeoutMs', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { idleSocketTimeoutMs: 1_000 });
    const client = await rawSocket(served.http.port);
    client.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await eventually(() => client.received.includes('"status":"ok"'));
    clock.advance(999);
    await settle();
    expect(client.closed).toBe(false);
    clock.advance(1);
    await eventually(() => client.closed);
  });

  test('an SSE stream and a WebSocket outlive every timeout, and count against their address', async () => {
    const clock = virtualClock();
    const limits = { maxSocketsPerAddress: 2, headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000, idleSocketTimeoutMs: 1_000 };
    served = await serve({ scheduler: clock.scheduler }, limits);
    const port = served.http.port;
    wsTransport = await serveWebSocket(served.server, { server: served.http.httpServer, path: '/ws', pingIntervalMs: null });
    const sessionId = await sessionOf(port);
    const sse = httpRequest({ host: '127.0.0.1', port, path: '/mcp', agent: false, headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
    opened.push(sse);
    sse.on('error', () => undefined);
    sse.end();
    const [stream] = (await once(sse, 'response')) as [IncomingMessage];
    stream.resume();
    let streamEnded = false;
    stream.on('close', () => (streamEnded = true));
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, 'mcp');
    opened.push({ destroy: () => ws.terminate() });
    ws.on('error', () => undefined);
    await once(ws, 'open');
    for (let i = 0; i < 6; i += 1) {
      clock.advance(10_000);
      await settle();
    }
    expect(streamEnded).toBe(false);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    const third = await rawSocket(port);
    await eventually(() => third.closed);
    expect((await requestFrom(port, '127.0.0.2', { path: '/health' })).status).toBe(200);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    const [reply] = await once(ws, 'message');
    expect(JSON.parse(String(reply))).toMatchObject({ id: 1, result: {} });
  });
});

/** A streamable session opened from 127.0.0.3 (its own sockets, so 127.0.0.1's share stays free). */
async function sessionOf(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(initializeMessage(1));
    const req = httpRequest(
      { host: '127.0.0.1', port, localAddress: '127.0.0.3', agent: false, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(String(res.headers['mcp-session-id'])));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('the WebSocket transport on a listener of its own', () => {
  test('caps idle sockets per address, times out the ones that never upgrade, and leaves WebSockets alone', async () => {
    const clock = virtualClock();
    wsTransport = await serveWebSocket(guardedServer({ scheduler: clock.scheduler }), {
      port: 0,
      pingIntervalMs: null,
      maxSockets: 32,
      maxSocketsPerAddress: 4,
      headersTimeoutMs: 1_000,
    });
    const port = Number(new URL(wsTransport.url!).port);
    const attack = await manySockets(10, port, '127.0.0.2');
    await eventually(() => closedCount(attack) >= 6);
    const ws = new WebSocket(wsTransport.url!, 'mcp', { localAddress: '127.0.0.1' });
    opened.push({ destroy: () => ws.terminate() });
    ws.on('error', () => undefined);
    await once(ws, 'open');
    clock.advance(1_000);
    await eventually(() => closedCount(attack) === 10);
    await settle();
    expect(ws.readyState).toBe(WebSocket.OPEN);
  });

  test('attached, the socket limits are the server owner\'s: passing them is a ConfigError', async () => {
    served = await serve();
    await expect(serveWebSocket(served.server, { server: served.http.httpServer, maxSockets: 10 })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('validation', () => {
  test('each limit must be a positive integer; the per-address share may not exceed maxSockets', async () => {
    await expect(serve({}, { maxSockets: 4, maxSocketsPerAddress: 5 })).rejects.toThrow(/maxSocketsPerAddress \(5\) may not exceed maxSockets \(4\)/);
    for (const option of ['maxSockets', 'headersTimeoutMs', 'bodyTimeoutMs', 'idleSocketTimeoutMs']) {
      await expect(serve({}, { [option]: 0 })).rejects.toThrow(new RegExp(`${option} must be a positive integer`));
    }
  });
});
