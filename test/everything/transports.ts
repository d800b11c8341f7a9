/**
 * The transports the fixture is exercised over, each as a way to connect an
 * official SDK Client to an McpServer and to tear down whatever it opened.
 * Network ones listen on 127.0.0.1, port 0, with the boot guard required
 * (the fixture must pass it as it would in production).
 */
import { PassThrough } from 'node:stream';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServer } from '../../lib/index.js';
import { serveHttp } from '../../transports/http/serve.js';
import { MemoryClientTransport, serveStdio, serveWebSocket } from '../../transports/index.js';
import { PipeClientTransport } from './pipe-client-transport.js';
import { WsClientTransport } from './ws-client-transport.js';

export interface OpenedTransport {
  readonly client: Transport;
  /** Closes what the transport opened on the server side (listeners, pipes). */
  close(): Promise<void>;
}

export interface TransportUnderTest {
  readonly name: string;
  open(server: McpServer): Promise<OpenedTransport>;
}

const memory: TransportUnderTest = {
  name: 'memory',
  open: async (server) => ({ client: new MemoryClientTransport(server) as unknown as Transport, close: async () => {} }),
};

const stdio: TransportUnderTest = {
  name: 'stdio',
  open: async (server) => {
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const handle = serveStdio(server, { input: toServer, output: fromServer });
    return {
      client: new PipeClientTransport(fromServer, toServer),
      close: async () => {
        handle.close();
        await handle.closed;
      },
    };
  },
};

const streamableHttp: TransportUnderTest = {
  name: 'streamable HTTP',
  open: async (server) => {
    const http = await serveHttp(server, { requireAuthorization: true });
    return { client: new StreamableHTTPClientTransport(new URL(http.url)), close: () => http.close() };
  },
};

const legacySse: TransportUnderTest = {
  name: 'legacy HTTP+SSE',
  open: async (server) => {
    const http = await serveHttp(server, { requireAuthorization: true });
    return { client: new SSEClientTransport(new URL(http.sseUrl!)), close: () => http.close() };
  },
};

const webSocket: TransportUnderTest = {
  name: 'WebSocket',
  open: async (server) => {
    const ws = await serveWebSocket(server, { port: 0, requireAuthorization: true });
    return { client: new WsClientTransport(ws.url!), close: () => ws.close() };
  },
};

export const TRANSPORTS: readonly TransportUnderTest[] = [memory, stdio, streamableHttp, legacySse, webSocket];
