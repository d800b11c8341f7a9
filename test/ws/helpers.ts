/**
 * Shared by the WebSocket tests: a server on 127.0.0.1 port 0, raw `ws`
 * clients, and bounded waits for what arrives over a real socket. Everything
 * opened here is closed by `closeAll()`.
 */
import { once } from 'node:events';
import { WebSocket, type ClientOptions } from 'ws';
import { VirtualTimeScheduler } from 'rxjs';
import { createServer, type McpServer } from '../../lib/index.js';
import type { ServerOptions } from '../../lib/options.js';
import { serveWebSocket, type WebSocketTransport } from '../../transports/ws/serve-websocket.js';
import type { ServeWebSocketOptions } from '../../transports/ws/options.js';

const cleanups: Array<() => Promise<void> | void> = [];

export async function closeAll(): Promise<void> {
  while (cleanups.length > 0) await cleanups.pop()!();
}

/** An authorizer-configured server, so the boot guard would pass even outside NODE_ENV=test. */
export function guardedServer(options: ServerOptions = {}): McpServer {
  return createServer({ authorizer: () => 'allow', authorizerSource: 'configured', readAuthorizer: () => 'allow', ...options });
}

export async function listen(
  server: McpServer,
  options: Partial<Omit<ServeWebSocketOptions, 'server'>> = {},
): Promise<{ transport: WebSocketTransport; url: string }> {
  const transport = await serveWebSocket(server, { port: 0, pingIntervalMs: null, ...options } as ServeWebSocketOptions);
  cleanups.push(() => transport.close());
  return { transport, url: transport.url! };
}

/** `protocols: []` offers no subprotocol at all. */
export function rawClient(url: string, protocols: string | string[] = 'mcp', options: ClientOptions = {}): WebSocket {
  const socket = new WebSocket(url, protocols, options);
  socket.on('error', () => {});
  cleanups.push(() => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  });
  return socket;
}

export async function openClient(url: string, protocols: string | string[] = 'mcp', options: ClientOptions = {}): Promise<WebSocket> {
  const socket = rawClient(url, protocols, options);
  await once(socket, 'open');
  return socket;
}

/** Every JSON message the socket receives, in order; `next()` waits (bounded) for the next unread one. */
export function inbox(socket: WebSocket): { next(timeoutMs?: number): Promise<Record<string, unknown>>; readonly all: Record<string, unknown>[] } {
  const all: Record<string, unknown>[] = [];
  let read = 0;
  socket.on('message', (data) => all.push(JSON.parse(String(data)) as Record<string, unknown>));
  return {
    all,
    next: (timeoutMs = 2000) =>
      new Promise((resolve, reject) => {
        const take = () => {
          if (read >= all.length) return;
          done();
          resolve(all[read++]!);
        };
        const onClose = () => {
          done();
          reject(new Error('socket closed before the next message'));
        };
        const timeout = setTimeout(() => {
          done();
          reject(new Error(`no message within ${timeoutMs} ms`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timeout);
          socket.off('message', take);
          socket.off('close', onClose);
        };
        socket.on('message', take);
        socket.on('close', onClose);
        take();
      }),
  };
}

/** Bounded: a socket that stays open fails the test in `timeoutMs` rather than at the test timeout. */
export async function closeEvent(socket: WebSocket, timeoutMs = 3000): Promise<{ code: number; reason: string }> {
  if (socket.readyState === WebSocket.CLOSED) throw new Error('already closed');
  const [code, reason] = (await once(socket, 'close', { signal: AbortSignal.timeout(timeoutMs) })) as [number, Buffer];
  return { code, reason: reason.toString() };
}

/** The HTTP status an upgrade was refused with. */
export async function refusedStatus(socket: WebSocket): Promise<{ status: number; body: string }> {
  const [, response] = (await once(socket, 'unexpected-response', { signal: AbortSignal.timeout(3000) })) as [unknown, import('node:http').IncomingMessage];
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return { status: response.statusCode ?? 0, body };
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** A VirtualTimeScheduler with an `advance(ms)` that runs what falls due. */
export function virtualClock(): VirtualTimeScheduler & { advance(ms: number): void } {
  const scheduler = new VirtualTimeScheduler() as VirtualTimeScheduler & { advance(ms: number): void };
  let now = 0;
  scheduler.advance = (ms: number) => {
    now += ms;
    scheduler.maxFrames = now;
    scheduler.flush();
    // So work scheduled after this advance is timed from `now`, not from the last action that ran.
    scheduler.frame = now;
  };
  return scheduler;
}
