/**
 * One TCP socket as one MCP connection: the whole transport contract of
 * `server.connect` (docs/transports.md, "Plugging a transport") for a line protocol,
 * newline-delimited JSON-RPC, written against rxmcp's public API only.
 *
 * - Framing and decoding are ours: a line that is not JSON (or not UTF-8),
 *   or is longer than `maxLineBytes`, is answered -32700 with id null
 *   (`errors.parseError`), and the connection lives on. Everything that
 *   parses goes to the server, which answers whatever is wrong with it.
 * - Identity: a fresh unguessable connection id per socket (`mintConnId`),
 *   the remote address as the peer (the fairness key), and a principal only
 *   if the operator's `principalOf` vouches for one.
 * - We subscribe to the server's side before reading a byte, so no reply
 *   can be missed; what it emits is written in the order it comes.
 * - Backpressure: when the socket's buffer is full we stop reading until it
 *   drains, so a peer that does not read cannot make us hold the replies to
 *   an endless stream of requests. Pushes and broadcasts are not requests,
 *   so what we hold is bounded too: past `maxBufferedBytes` the peer is
 *   closed, not waited for.
 * - The end, from either side, is one path (`finish`): the socket ending,
 *   closing or failing is the peer gone (we unsubscribe: its calls in flight
 *   are aborted and never answered); our `close()` first ends its listen
 *   streams with a notification it can still read, then ends the socket
 *   after what was already written. Nothing is written after the end, and
 *   nothing we do throws into the server or out of a socket event.
 */
import { Subject } from 'rxjs';
import type { Socket } from 'node:net';
import { encodeMessage, errors, type Logger, type McpServer, type OutboundMessage, type Principal } from '../../lib/index.js';
import { mintConnId } from '../../transports/index.js';
import { LineFrames } from './line-frames.js';

export interface SocketConnectionOptions {
  readonly maxLineBytes: number;
  readonly maxBufferedBytes: number;
  /** How long a socket we ended may wait for its peer's side to close before it is destroyed. */
  readonly closeGraceMs: number;
  readonly principalOf?: (socket: Socket) => Principal | undefined;
  readonly logger: Logger;
}

export interface SocketConnection {
  readonly connId: string;
  /** Resolves once the connection is gone and the socket closed. */
  readonly closed: Promise<void>;
  /** Ends it from our side: its listen streams are told why, then the socket ends after what was written. */
  close(reason: string): void;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function connectSocket(server: McpServer, socket: Socket, options: SocketConnectionOptions): SocketConnection {
  const { logger, maxBufferedBytes } = options;
  const connId = mintConnId('tcp');
  const frames = new LineFrames(options.maxLineBytes);
  const inbound = new Subject<unknown>();
  const principal = options.principalOf?.(socket);
  let finished = false;
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

  /** The one way out. `end()`, not `destroy()`, unless the peer is the problem: what was written still reaches a peer that reads. */
  const finish = (how: 'end' | 'destroy' = 'end') => {
    if (finished) return;
    finished = true;
    connection.unsubscribe();
    inbound.complete();
    if (how === 'destroy' || socket.destroyed) {
      socket.destroy();
      return;
    }
    socket.end();
    // A peer that never closes its side does not hold the socket (or our close()) forever.
    const grace = server.scheduler.schedule(() => socket.destroy(), options.closeGraceMs);
    socket.once('close', () => grace.unsubscribe());
  };

  const write = (message: OutboundMessage) => {
    if (finished) return;
    const text = encodeMessage(message);
    if (text === null) {
      logger.warn({ connId }, 'tcp-lines: a notification could not be serialised; not sent');
      return;
    }
    const flushed = socket.write(`${text}\n`);
    if (socket.writableLength > maxBufferedBytes) {
      logger.warn({ connId, buffered: socket.writableLength }, 'tcp-lines: the peer does not read; closing it');
      finish('destroy');
      return;
    }
    if (!flushed && !socket.isPaused()) {
      socket.pause();
      socket.once('drain', () => {
        if (!finished) socket.resume();
      });
    }
  };

  const onLine = (bytes: Buffer) => {
    let message: unknown;
    try {
      const text = utf8.decode(bytes);
      if (text.trim() === '') return;
      message = JSON.parse(text);
    } catch {
      write(errors.parseError('not a JSON line'));
      return;
    }
    inbound.next(message);
  };

  // Subscribed before the first byte is read. Our observer must not throw (RxJS would rethrow it on a timer).
  const connection = server
    .connect(connId, inbound, { transport: 'unknown', peer: `addr:${socket.remoteAddress ?? 'unknown'}`, ...(principal === undefined ? {} : { principal }) })
    .subscribe({
      next: (message) => {
        try {
          write(message);
        } catch (err) {
          logger.error({ connId, err }, 'tcp-lines: a write failed; closing the connection');
          finish();
        }
      },
      complete: () => finish(),
    });

  socket.on('data', (chunk: Buffer) => {
    if (finished) return;
    for (const frame of frames.push(chunk)) {
      if (frame.kind === 'overlong') write(errors.parseError(`line exceeds ${options.maxLineBytes} bytes`));
      else onLine(frame.bytes);
      if (finished) return;
    }
  });
  socket.on('end', () => finish());
  socket.on('close', () => finish());
  socket.on('error', (err) => {
    logger.debug({ connId, err }, 'tcp-lines: socket failed');
    finish();
  });

  return {
    connId,
    closed,
    close: (reason) => {
      if (finished) return;
      server.cancelListens(connId, reason);
      finish();
    },
  };
}
