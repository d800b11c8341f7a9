/**
 * Property: arbitrary hostile JSON (hostile.ts: thousands deep, huge, shaped
 * like cycles and prototype tricks, repeated keys, not JSON at all) through
 * every transport's decode -> dispatch -> encode path, over real streams and
 * sockets on 127.0.0.1:
 *
 * - nothing escapes: no RxJS unhandled error, no uncaught exception, no
 *   unhandled rejection while the runs go on;
 * - each message gets exactly what the contract says: -32700 for text that
 *   is not JSON, else exactly one reply carrying the expected id (the id
 *   itself when it is a string, a number or null, else null), or nothing;
 * - the connection survives every message, and afterwards a fresh client is
 *   served and the server holds nothing.
 *
 * A stream transport (stdio, WebSocket, legacy SSE) is read up to a ping
 * sent right behind each message: what came before the ping's reply is that
 * message's answer (every method of the server here answers synchronously).
 * Streamable HTTP answers each POST itself (200 with the reply, 400 with the
 * envelope's error, 202 for nothing).
 */
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { config } from 'rxjs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { McpServer } from '../../lib/index.js';
import { serveHttp, serveStdio, serveWebSocket, type HttpServerHandle, type StdioHandle, type WebSocketTransport } from '../../transports/index.js';
import { within, type Message } from '../hostile/demo-process.js';
import { LegacySseClient, RawWebSocket, post, streamableSession } from '../hostile/wire-clients.js';
import { everythingServer } from './everything-server.js';
import { expectationFor, hostileText, type WireExpectation } from './hostile.js';

const NUM_RUNS = 50;
const MESSAGES_PER_RUN = 6;
const WAIT_MS = 10_000;

const escaped: unknown[] = [];
const previousOnUnhandledError = config.onUnhandledError;
const onUncaught = (error: unknown) => escaped.push(error);
beforeAll(() => {
  config.onUnhandledError = (error) => escaped.push(error);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterAll(() => {
  config.onUnhandledError = previousOnUnhandledError;
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
});

/** One open connection of a transport: each exchange is one message and everything it got back. */
interface Connection {
  exchange(text: string): Promise<Message[]>;
  close(): Promise<void>;
}

function isReply(message: Message): boolean {
  return 'id' in message && !('method' in message) && ('result' in message || 'error' in message);
}

/** Reads a stream transport up to the reply to a ping sent behind the message. */
class SentinelReader {
  private sequence = 0;

  constructor(
    private readonly send: (text: string) => void | Promise<void>,
    private readonly next: () => Promise<Message>,
  ) {}

  async exchange(text: string): Promise<Message[]> {
    const sentinel = `\u0001sentinel-${this.sequence++}`;
    await this.send(text);
    await this.send(JSON.stringify({ jsonrpc: '2.0', id: sentinel, method: 'ping' }));
    const before: Message[] = [];
    for (;;) {
      const message = await this.next();
      if (message.id === sentinel && 'result' in message) return before.filter(isReply);
      before.push(message);
    }
  }
}

function checkReplies(expectation: WireExpectation, replies: Message[], text: string): void {
  const shown = text.length > 160 ? `${text.slice(0, 120)}... (${text.length} chars)` : text;
  if (expectation.kind === 'none') {
    expect(replies, `no reply expected for ${shown}`).toEqual([]);
    return;
  }
  expect(replies, `one reply expected for ${shown}`).toHaveLength(1);
  const reply = replies[0]!;
  expect(reply.jsonrpc).toBe('2.0');
  if (expectation.kind === 'parse-error') {
    expect(reply.id).toBeNull();
    expect(reply.error?.code).toBe(-32700);
  } else {
    expect(Object.is(reply.id, expectation.id), `id of the reply to ${shown}`).toBe(true);
  }
}

interface TransportUnderTest {
  readonly name: string;
  start(server: McpServer): Promise<void>;
  open(): Promise<Connection>;
  stop(): Promise<void>;
}

function stdioTransport(): TransportUnderTest {
  let server: McpServer;
  return {
    name: 'stdio',
    async start(s) {
      server = s;
    },
    async open() {
      const input = new PassThrough();
      const output = new PassThrough();
      const lines: Message[] = [];
      let buffered = '';
      let wake: (() => void) | undefined;
      output.setEncoding('utf8');
      output.on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) !== -1) {
          lines.push(JSON.parse(buffered.slice(0, newline)) as Message);
          buffered = buffered.slice(newline + 1);
        }
        wake?.();
      });
      // A connection id per run: the connection of the previous run may still be leaving.
      const handle: StdioHandle = serveStdio(server, { input, output, connId: `stdio-${Math.random()}` });
      let read = 0;
      const next = () =>
        within(
          (async () => {
            while (read >= lines.length) await new Promise<void>((resolve) => (wake = resolve));
            return lines[read++]!;
          })(),
          WAIT_MS,
          'stdio line',
        );
      const reader = new SentinelReader((text) => void input.write(`${text}\n`), next);
      return {
        exchange: (text) => reader.exchange(text),
        close: async () => {
          input.end();
          await within(handle.closed, WAIT_MS, 'stdio close');
        },
      };
    },
    async stop() {},
  };
}

function webSocketTransport(): TransportUnderTest {
  let ws: WebSocketTransport;
  return {
    name: 'WebSocket',
    async start(server) {
      ws = await serveWebSocket(server, { port: 0, pingIntervalMs: null, maxPayload: 4 * 1024 * 1024 });
    },
    async open() {
      const socket = await RawWebSocket.open(ws.url!);
      const reader = new SentinelReader((text) => socket.send(text), () => socket.next(WAIT_MS));
      return { exchange: (text) => reader.exchange(text), close: async () => socket.close() };
    },
    stop: () => ws.close(),
  };
}

function legacySseTransport(): TransportUnderTest {
  let http: HttpServerHandle;
  return {
    name: 'legacy SSE',
    async start(server) {
      http = await serveHttp(server, { port: 0 });
    },
    async open() {
      const sse = await LegacySseClient.open(http.sseUrl!);
      let parseErrors: Message[] = [];
      const reader = new SentinelReader(
        async (text) => {
          const response = await post(sse.postUrl, text);
          // Undecodable bytes are refused on the POST itself (400 -32700); anything accepted is a 202.
          if (response.status === 400) parseErrors.push((await response.json()) as Message);
          else {
            expect(response.status).toBe(202);
            await response.body?.cancel();
          }
        },
        () => sse.next(),
      );
      return {
        exchange: async (text) => {
          parseErrors = [];
          const onStream = await reader.exchange(text);
          return [...parseErrors, ...onStream];
        },
        close: () => sse.close(),
      };
    },
    stop: () => http.close(),
  };
}

function streamableTransport(): TransportUnderTest {
  let http: HttpServerHandle;
  return {
    name: 'Streamable HTTP',
    async start(server) {
      http = await serveHttp(server, { port: 0, legacySse: false });
    },
    async open() {
      const session = await streamableSession(http.url);
      return {
        exchange: async (text) => {
          const response = await post(http.url, text, { 'mcp-session-id': session });
          if (response.status === 202) {
            await response.body?.cancel();
            return [];
          }
          expect([200, 400]).toContain(response.status);
          return [(await response.json()) as Message];
        },
        close: async () => {
          const response = await within(fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': session } }), WAIT_MS, 'DELETE');
          await response.body?.cancel();
        },
      };
    },
    stop: () => http.close(),
  };
}

describe.each([
  ['stdio', stdioTransport],
  ['WebSocket', webSocketTransport],
  ['legacy SSE', legacySseTransport],
  ['Streamable HTTP', streamableTransport],
] as const)('%s', (_name, makeTransport) => {
  const transport = makeTransport();
  let server: McpServer;
  beforeAll(async () => {
    server = everythingServer();
    await transport.start(server);
  });
  afterAll(async () => {
    await transport.stop();
  });

  test(`${transport.name}: every hostile message gets exactly its answer, nothing escapes, the connection and the server live on`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(hostileText, { minLength: 1, maxLength: MESSAGES_PER_RUN }), async (messages) => {
        const connection = await transport.open();
        try {
          for (const { text } of messages) checkReplies(expectationFor(text), await connection.exchange(text), text);
        } finally {
          await connection.close();
        }
        expect(escaped).toEqual([]);
      }),
      { numRuns: NUM_RUNS },
    );
    // A fresh, well-behaved client is still served.
    const connection = await transport.open();
    const replies = await connection.exchange(JSON.stringify({ jsonrpc: '2.0', id: 'fine', method: 'ping' }));
    expect(replies).toStrictEqual([{ jsonrpc: '2.0', id: 'fine', result: {} }]);
    await connection.close();
    await new Promise((resolve) => setTimeout(resolve, 0)); // RxJS reports escapes on a timer of its own
    expect(escaped).toEqual([]);
    expect(server.stats()).toMatchObject({ inFlight: 0, parked: 0 });
  }, 120_000); // real sockets on a shared machine: generous, yet bounded
});
