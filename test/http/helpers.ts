/**
 * Test helpers for the HTTP transports: a server on 127.0.0.1:0, raw
 * requests, an SSE frame reader, and a virtual clock to advance.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach } from 'vitest';
import { createServer, Registry, type McpServer, type ServerOptions } from '../../lib/index.js';
import { serveHttp, type HttpServerHandle, type ServeHttpOptions } from '../../transports/index.js';

export const PROTOCOL = '2025-11-25';

export interface Served {
  readonly server: McpServer;
  readonly http: HttpServerHandle;
  readonly url: string;
  readonly base: string;
  close(): Promise<void>;
}

export async function serve(serverOptions: ServerOptions = {}, httpOptions: ServeHttpOptions = {}): Promise<Served> {
  const server = createServer({ registry: serverOptions.registry ?? new Registry(), ...serverOptions });
  // A virtual clock jumping past the idle socket timeout would close fetch's pooled sockets under it (the keep-alive
  // race a real client avoids by timing out first); tests of that timeout set it themselves.
  const http = await serveHttp(server, { port: 0, idleSocketTimeoutMs: 3_600_000, ...httpOptions });
  return {
    server,
    http,
    url: http.url,
    base: `http://127.0.0.1:${http.port}`,
    close: async () => {
      await http.close();
      server.close();
    },
  };
}

/**
 * For a test file whose tests each serve and read SSE: `serve` as above and
 * `track` (keep an SseReader), both undone after each test (the readers
 * cancelled first, then the servers closed).
 */
export function closedAfterEach(): { serve: typeof serve; track(reader: SseReader): SseReader } {
  const servers: Served[] = [];
  const readers: SseReader[] = [];
  afterEach(async () => {
    for (const reader of readers.splice(0)) await reader.cancel();
    for (const served of servers.splice(0)) await served.close();
  });
  return {
    async serve(serverOptions, httpOptions) {
      const served = await serve(serverOptions, httpOptions);
      servers.push(served);
      return served;
    },
    track(reader) {
      readers.push(reader);
      return reader;
    },
  };
}

export function initializeMessage(id: number | string = 1, capabilities: Record<string, unknown> = {}) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities, clientInfo: { name: 'raw', version: '1' } },
  };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Initializes a session in JSON mode; returns its id. */
export async function openSession(url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const response = await postJson(url, initializeMessage(1, capabilities));
  if (response.status !== 200) throw new Error(`initialize answered ${response.status}`);
  await response.json();
  const id = response.headers.get('mcp-session-id');
  if (id === null) throw new Error('no Mcp-Session-Id');
  const initialized = await postJson(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id });
  await initialized.body?.cancel();
  return id;
}

export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
  readonly retry?: number;
  readonly comment?: string;
}

/** Reads SSE frames (events and comments) off a fetch body, one at a time. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly frames: SseFrame[] = [];
  ended = false;

  constructor(response: Response) {
    if (response.body === null) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  async next(): Promise<SseFrame> {
    while (this.frames.length === 0) {
      const { value, done } = await this.reader.read();
      if (done) {
        this.ended = true;
        throw new Error('stream ended');
      }
      this.buffer += this.decoder.decode(value, { stream: true });
      this.parse();
    }
    return this.frames.shift()!;
  }

  /** The next frame carrying data (skips comments and the priming event). */
  async nextMessage(): Promise<{ id?: string; message: Record<string, unknown> }> {
    for (;;) {
      const frame = await this.next();
      if (frame.data !== undefined && frame.data !== '') {
        return { id: frame.id, message: JSON.parse(frame.data) as Record<string, unknown> };
      }
    }
  }

  /** Resolves true when the stream ends (after skipping any further frames). */
  async untilEnd(): Promise<true> {
    for (;;) {
      try {
        await this.next();
      } catch {
        return true;
      }
    }
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }

  private parse(): void {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const frame: { id?: string; event?: string; data?: string; retry?: number; comment?: string } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          frame.comment = line.slice(1).trim();
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'retry') frame.retry = Number(value);
        else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
      }
      this.frames.push(frame);
    }
  }
}

/** A virtual clock for the server's scheduler: `advance(ms)` runs everything due, nothing else. */
export function virtualClock(): { scheduler: VirtualTimeScheduler; advance(ms: number): void } {
  const scheduler = new VirtualTimeScheduler();
  let now = 0;
  return {
    scheduler,
    advance(ms: number) {
      now += ms;
      scheduler.maxFrames = now;
      scheduler.flush();
      scheduler.frame = now;
    },
  };
}

/** Polls a condition across event-loop turns (I/O settling, never timed sleeps); bounded. */
export async function eventually(condition: () => boolean, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('condition not met');
}
