/**
 * examples/transports/tcp-lines.ts, a transport written outside the library
 * against the contract of `server.connect`, driven over real loopback TCP
 * by the official SDK client (1.32.2) through a client-side Transport of a
 * dozen lines (below), and by a raw socket where the SDK would hide the
 * wire: framing errors, both sides closing, a call in flight when the socket
 * closes (its handler aborted, no reply, nothing left held), and a peer that
 * does not read.
 */
import { connect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { NEVER } from 'rxjs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { serveTcpLines, type TcpLinesTransport } from '../../examples/transports/tcp-lines.js';
import { createServer, Registry, untilAborted, type Logger, type McpServer } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';

/** The client side of the line protocol, in the SDK's Transport shape. */
class TcpLineClientTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  socket: Socket | undefined;
  private buffered = '';

  constructor(private readonly port: number) {}

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.port, '127.0.0.1', () => resolve());
      this.socket = socket;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        this.buffered += chunk;
        let newline: number;
        while ((newline = this.buffered.indexOf('\n')) !== -1) {
          const line = this.buffered.slice(0, newline);
          this.buffered = this.buffered.slice(newline + 1);
          this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        }
      });
      socket.on('error', (err) => (this.socket === undefined ? reject(err) : this.onerror?.(err)));
      socket.on('close', () => this.onclose?.());
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.socket?.write(`${JSON.stringify(message)}\n`);
  }

  async close(): Promise<void> {
    this.socket?.end();
  }
}

function spyLogger() {
  return { debug: vi.fn(), info: vi.fn(), warn: vi.fn<(obj: unknown, msg?: string) => void>(), error: vi.fn<(obj: unknown, msg?: string) => void>() } satisfies Logger;
}

interface Started {
  readonly server: McpServer;
  readonly tcp: TcpLinesTransport;
  readonly logger: ReturnType<typeof spyLogger>;
  /** Calls of `wait` whose signal fired. */
  readonly aborted: string[];
  readonly started: string[];
  /** Calls of `count` that ran. */
  readonly counted: { n: number };
}

const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of running.splice(0)) await stop();
});

async function start(options: { maxBufferedBytes?: number; maxLineBytes?: number } = {}): Promise<Started> {
  const counted = { n: 0 };
  const aborted: string[] = [];
  const started: string[] = [];
  const registry = new Registry()
    .registerTool({
      name: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      handler: ({ text }) => text,
    })
    .registerTool({
      name: 'wait',
      inputSchema: { type: 'object', properties: { tag: { type: 'string' } }, required: ['tag'] },
      handler: async ({ tag }, ctx) => {
        started.push(tag);
        ctx.signal.addEventListener('abort', () => aborted.push(tag), { once: true });
        // Never answers: it ends only when its signal aborts (the call cancelled, the connection gone).
        return untilAborted(NEVER, ctx.signal);
      },
    })
    .registerTool({ name: 'big', handler: () => 'x'.repeat(8 * 1024 * 1024) })
    .registerTool({ name: 'count', handler: () => String(++counted.n) });
  const logger = spyLogger();
  const server = createServer({ registry, logger, name: 'tcp-lines-test' });
  const tcp = await serveTcpLines(server, options);
  running.push(async () => {
    await tcp.close();
    server.close();
  });
  return { server, tcp, logger, aborted, started, counted };
}

async function sdkClient(port: number): Promise<{ client: Client; transport: TcpLineClientTransport; closed: Promise<void> }> {
  const client = new Client({ name: 'tcp-lines', version: '1.0.0' });
  const transport = new TcpLineClientTransport(port);
  const closed = new Promise<void>((resolve) => (client.onclose = resolve));
  await client.connect(transport);
  return { client, transport, closed };
}

/** A raw socket's lines, parsed, as they come. */
async function rawSocket(port: number): Promise<{ socket: Socket; lines: Array<Record<string, unknown>> }> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const lines: Array<Record<string, unknown>> = [];
  let pending: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf(0x0a, start)) !== -1) {
      pending.push(chunk.subarray(start, newline));
      lines.push(JSON.parse(Buffer.concat(pending).toString('utf8')) as Record<string, unknown>);
      pending = [];
      start = newline + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  return { socket, lines };
}

const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('the TCP line transport with the official SDK client', () => {
  test('initialize, list, call; the peer is its address and the connection goes when the client closes', async () => {
    const { server, tcp } = await start();
    const { client, closed } = await sdkClient(tcp.port);
    expect(client.getServerVersion()?.name).toBe('tcp-lines-test');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo', 'wait', 'big', 'count']);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'over tcp' } }))).toBe('over tcp');
    expect(tcp.connections).toBe(1);
    expect(server.stats().connections).toBe(1);

    await client.close();
    await closed;
    await expect.poll(() => [tcp.connections, server.stats().connections]).toEqual([0, 0]);
  });

  test('the server closing the transport: the client sees the connection close', async () => {
    const { server, tcp } = await start();
    const { closed } = await sdkClient(tcp.port);
    await tcp.close();
    await closed;
    expect(server.stats().connections).toBe(0);
  });

  test('a call in flight when the client closes the socket: the handler is aborted, nothing is left held', async () => {
    const { server, tcp, aborted, started, logger } = await start();
    const { client, closed } = await sdkClient(tcp.port);
    const call = client.callTool({ name: 'wait', arguments: { tag: 'client-side' } });
    await expect.poll(() => started).toEqual(['client-side']);
    expect(server.stats().inFlight).toBe(1);
    await client.close();
    await expect(call).rejects.toThrow(/closed/i);
    await closed;
    await expect.poll(() => aborted).toEqual(['client-side']);
    await expect.poll(() => server.stats()).toMatchObject({ inFlight: 0, connections: 0 });
    expect(logger.error).not.toHaveBeenCalled();
  });

  test('a call in flight when the server ends the connection: the client request fails, the handler is aborted', async () => {
    const { server, tcp, aborted, started } = await start();
    const { client, closed } = await sdkClient(tcp.port);
    const call = client.callTool({ name: 'wait', arguments: { tag: 'server-side' } });
    await expect.poll(() => started).toEqual(['server-side']);
    const failed = expect(call).rejects.toThrow(/closed/i);
    await tcp.close('maintenance');
    await failed;
    await closed;
    expect(aborted).toEqual(['server-side']);
    expect(server.stats()).toMatchObject({ inFlight: 0, connections: 0 });
  });
});

describe('the TCP line transport on the wire', () => {
  test('a line that is not JSON, or too long, is answered -32700 with id null; the connection lives on', async () => {
    const { tcp } = await start({ maxLineBytes: 256 });
    const { socket, lines } = await rawSocket(tcp.port);
    socket.write('not json\n');
    socket.write(`${'y'.repeat(1000)}\n`);
    socket.write('\n');
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\r\n`);
    await expect.poll(() => lines.length).toBe(3);
    expect(lines[0]).toMatchObject({ id: null, error: { code: -32700, message: 'Parse error: not a JSON line' } });
    expect(lines[1]).toMatchObject({ id: null, error: { code: -32700, message: 'Parse error: line exceeds 256 bytes' } });
    expect(lines[2]).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    socket.end();
  });

  test('the transport closing a connection ends its listen stream with notifications/cancelled first, then the socket', async () => {
    const { server, tcp } = await start();
    const { socket, lines } = await rawSocket(tcp.port);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(`${JSON.stringify(modernRpc(7, 'subscriptions/listen', { notifications: { toolsListChanged: true } }))}\n`);
    await expect.poll(() => lines.length).toBe(1);
    expect(lines[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(server.stats().listens).toBe(1);
    await tcp.close('maintenance');
    await closed;
    expect(lines[1]).toMatchObject({ method: 'notifications/cancelled', params: { requestId: 7, reason: 'maintenance' } });
    expect(lines).toHaveLength(2);
    expect(server.stats()).toMatchObject({ listens: 0, connections: 0 });
  });

  test('while the socket cannot take more, nothing more is read from it; once the peer reads, the rest is served', async () => {
    const { tcp, counted } = await start({ maxBufferedBytes: 64 * 1024 * 1024 });
    const { socket, lines } = await rawSocket(tcp.port);
    socket.pause();
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } })}\n`);
    // Real I/O, no scheduler to drive: give the 8 MiB reply time to fill the socket, then ask for more.
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count' } })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counted.n).toBe(0);
    socket.resume();
    await expect.poll(() => lines.length, { timeout: 10_000 }).toBe(2);
    expect(counted.n).toBe(1);
    expect(lines[1]).toMatchObject({ id: 2, result: { content: [{ text: '1' }] } });
    socket.end();
  });

  test('a peer that does not read is closed past maxBufferedBytes, not buffered for', async () => {
    const { server, tcp, logger } = await start({ maxBufferedBytes: 64 * 1024 });
    const { socket } = await rawSocket(tcp.port);
    // Never reads: what the server writes piles up in its socket's buffer.
    socket.pause();
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big' } })}\n`);
    await expect.poll(() => [tcp.connections, server.stats().connections], { timeout: 10_000 }).toEqual([0, 0]);
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ buffered: expect.any(Number) }), 'tcp-lines: the peer does not read; closing it');
    socket.destroy();
  });
});
