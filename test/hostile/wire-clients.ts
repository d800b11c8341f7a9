/**
 * Raw clients for the hostile-input tests: bytes exactly as a hostile peer
 * writes them (no SDK to tidy them up), every wait bounded.
 */
import { once } from 'node:events';
import { WebSocket } from 'ws';
import { SseReader } from '../http/helpers.js';
import { within, type Message } from './demo-process.js';

const WAIT_MS = 5000;

/** POSTs `body` (text as is, anything else as JSON). */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return within(
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
    WAIT_MS,
    `POST ${url}`,
  );
}

export async function sessionCount(base: string): Promise<number> {
  const response = await within(fetch(`${base}/health`), WAIT_MS, 'GET /health');
  return ((await response.json()) as { sessions: number }).sessions;
}

/** A Streamable HTTP session, initialized; returns its id. */
export async function streamableSession(url: string): Promise<string> {
  const response = await post(url, {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hostile', version: '0' } },
  });
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  await response.json();
  return response.headers.get('mcp-session-id')!;
}

/** A legacy SSE session: its stream and the URL its messages are POSTed to. */
export class LegacySseClient {
  private constructor(
    private readonly reader: SseReader,
    readonly postUrl: string,
  ) {}

  static async open(sseUrl: string): Promise<LegacySseClient> {
    const response = await within(fetch(sseUrl, { headers: { accept: 'text/event-stream' } }), WAIT_MS, 'GET /sse');
    const reader = new SseReader(response);
    const endpoint = await within(reader.next(), WAIT_MS, 'endpoint event');
    if (endpoint.event !== 'endpoint' || endpoint.data === undefined) throw new Error('no endpoint event');
    return new LegacySseClient(reader, new URL(endpoint.data, sseUrl).href);
  }

  /** POSTs one message; the HTTP status (202 when accepted). */
  async send(body: unknown): Promise<number> {
    const response = await post(this.postUrl, body);
    await response.body?.cancel();
    return response.status;
  }

  async next(): Promise<Message> {
    return (await within(this.reader.nextMessage(), WAIT_MS, 'SSE message')).message;
  }

  close(): Promise<void> {
    return this.reader.cancel();
  }
}

/** A raw WebSocket client, subprotocol mcp: text frames out, parsed messages in. */
export class RawWebSocket {
  private readonly received: Message[] = [];
  private read = 0;
  private wake: (() => void) | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(String(data)) as Message);
      this.wake?.();
    });
    socket.on('close', () => this.wake?.());
  }

  static async open(url: string): Promise<RawWebSocket> {
    const socket = new WebSocket(url, 'mcp');
    socket.on('error', () => {});
    await within(once(socket, 'open'), WAIT_MS, 'WebSocket open');
    return new RawWebSocket(socket);
  }

  send(body: unknown): void {
    this.socket.send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  next(ms = WAIT_MS): Promise<Message> {
    const take = async (): Promise<Message> => {
      while (this.read >= this.received.length) {
        if (this.socket.readyState !== WebSocket.OPEN) throw new Error('socket closed before the next message');
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
      }
      return this.received[this.read++]!;
    };
    return within(take(), ms, 'WebSocket message');
  }

  get unread(): number {
    return this.received.length - this.read;
  }

  close(): void {
    this.socket.terminate();
  }
}
