/**
 * An MCP transport rxmcp does not ship, as a user would write one: newline-
 * delimited JSON-RPC over TCP (node:net), one connection per socket, on
 * 127.0.0.1 by default. The listener is here; one socket's life is in
 * socket-connection.ts, which is where the transport contract is kept.
 *
 * No authentication: bind it to loopback (the default), or give
 * `principalOf` a socket-level check you trust (a client certificate on a
 * TLS socket, a Unix peer credential); nothing on the wire sets identity.
 */
import { createServer as createNetServer, type Socket } from 'node:net';
import type { McpServer, Principal } from '../../lib/index.js';
import { connectSocket, type SocketConnection } from './socket-connection.js';

export interface TcpLinesOptions {
  /** Default 0: any free port (see `port` on the result). */
  readonly port?: number;
  /** Default '127.0.0.1'. */
  readonly host?: string;
  /** Longest line accepted, in bytes; default 4 MiB. */
  readonly maxLineBytes?: number;
  /** Bytes a socket may hold unsent before its peer is closed as not reading; default 8 MiB. */
  readonly maxBufferedBytes?: number;
  /** How long a socket we end may wait for its peer to close its side before it is destroyed; default 5000 ms (on the server's scheduler). */
  readonly closeGraceMs?: number;
  /** Who is on the other end, as the operator vouches; default none. */
  readonly principalOf?: (socket: Socket) => Principal | undefined;
}

export interface TcpLinesTransport {
  readonly host: string;
  readonly port: number;
  /** Connections open now. */
  readonly connections: number;
  /** Stops listening and ends every connection (its listen streams told `reason`); resolves when every socket has closed. */
  close(reason?: string): Promise<void>;
}

export async function serveTcpLines(server: McpServer, options: TcpLinesOptions = {}): Promise<TcpLinesTransport> {
  const host = options.host ?? '127.0.0.1';
  const live = new Set<SocketConnection>();
  const listener = createNetServer((socket) => {
    const connection = connectSocket(server, socket, {
      maxLineBytes: options.maxLineBytes ?? 4 * 1024 * 1024,
      maxBufferedBytes: options.maxBufferedBytes ?? 8 * 1024 * 1024,
      closeGraceMs: options.closeGraceMs ?? 5000,
      logger: server.logger,
      ...(options.principalOf === undefined ? {} : { principalOf: options.principalOf }),
    });
    live.add(connection);
    void connection.closed.then(() => live.delete(connection));
  });
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port ?? 0, host, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  const address = listener.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    host,
    port,
    get connections() {
      return live.size;
    },
    close: async (reason = 'the server is closing') => {
      const stopped = new Promise<void>((resolve) => listener.close(() => resolve()));
      const all = [...live];
      for (const connection of all) connection.close(reason);
      await Promise.all([stopped, ...all.map((c) => c.closed)]);
    },
  };
}
