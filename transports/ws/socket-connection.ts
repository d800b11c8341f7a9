/**
 * One WebSocket, one server connection: text frames in, `server.connect`
 * under a freshly minted id, messages out as text frames. The connection
 * lives exactly as long as the socket: the socket closing unsubscribes it
 * (its parked calls dropped, its workers aborted). A peer that still has
 * more than `maxBufferedBytes` of earlier output unread when the next message
 * is due is a slow consumer: it is closed with 1013 rather than allowed to
 * grow the server's memory (the backlog is bounded by the limit plus one
 * message). Across the sockets of one serveWebSocket, the bytes held unsent
 * count against one OutboundBudget: over it, the biggest holders are closed
 * with 1013 first. The connection's peer (the fairness key) is read from the
 * upgrade request, and so is its principal when the transport authenticates:
 * fixed for the socket, which is closed 4401 when its token expires.
 */
import { Observable, Subscription, type SchedulerLike } from 'rxjs';
// Types only: the readyState constants are read off the socket, so this module does not load ws.
import type { RawData, WebSocket } from 'ws';
import type { Principal } from '../../lib/auth/principal.js';
import type { ConnId } from '../../lib/context.js';
import { parseError } from '../../lib/errors.js';
import { guardedObserver } from '../../lib/guarded.js';
import type { Logger } from '../../lib/logger.js';
import { encodeMessage } from '../../lib/protocol/encode.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import type { McpServer } from '../../streams/mcp-server.js';
import { mintConnId } from '../conn-id.js';
import { CLOSE_NORMAL, CLOSE_TRY_AGAIN_LATER, closeWithGrace } from './closing.js';
import { CLOSE_TOKEN_EXPIRED, watchExpiry } from './authenticate-upgrade.js';
import { decodeFrame } from './frames.js';
import { RepeatedEnvelopeParser } from '../repeated-envelope.js';
import { keepAlive } from './liveness.js';
import type { BudgetHolder, OutboundBudget } from './outbound-budget.js';
import { connectOptionsOf } from '../connect-options.js';

export interface SocketLimits {
  readonly maxBufferedBytes: number;
  readonly pingIntervalMs: number | null;
  readonly closeGraceMs: number;
}

export interface SocketConnection {
  readonly connId: ConnId;
  /** Ends the server connection and closes the socket with `code`. */
  end(code: number, reason: string): void;
}

export interface SocketContext {
  readonly limits: SocketLimits;
  /** Shared by every socket of one serveWebSocket. */
  readonly budget: OutboundBudget;
  /** The upgrade request's peer (see transports/peer.ts). */
  readonly peer: string;
  /** The upgrade request's verified principal, when the transport authenticates. */
  readonly principal?: Principal | undefined;
  readonly logger: Logger;
}

export function serveSocket(server: McpServer, socket: WebSocket, context: SocketContext): SocketConnection {
  const { limits, budget, logger } = context;
  const connId = mintConnId('ws');
  const scheduler: SchedulerLike = server.scheduler;
  const connection = new Subscription();
  // Outlives `connection`: the close grace must still run after the connection is gone.
  const closing = new Subscription();

  // Counted against the budget until the socket starts closing: a closing socket takes no more sends.
  let counted = true;
  const holder: BudgetHolder = {
    evict: () => {
      logger.warn({ connId, bufferedAmount: socket.bufferedAmount }, 'rxmcp ws: server-wide outbound buffer full; slow consumer closed');
      end(CLOSE_TRY_AGAIN_LATER, `slow consumer: server-wide outbound buffer over ${budget.maxTotal} bytes`);
    },
  };
  const recount = () => {
    if (counted) budget.record(holder, socket.bufferedAmount);
  };
  const stopCounting = () => {
    counted = false;
    budget.forget(holder);
  };

  // A slow consumer is cut off without another frame; any other end of ours first tells the peer's listen streams.
  const end = (code: number, reason: string) => {
    if (code !== CLOSE_TRY_AGAIN_LATER && !connection.closed && socket.readyState === socket.OPEN) server.cancelListens(connId, reason);
    stopCounting();
    connection.unsubscribe();
    closing.add(closeWithGrace(socket, code, reason, limits.closeGraceMs, scheduler));
  };

  const send = (message: OutboundMessage) => {
    if (socket.readyState !== socket.OPEN) return;
    // Checked before sending, so one large reply to a reader that keeps up is never mistaken for a backlog.
    if (socket.bufferedAmount > limits.maxBufferedBytes) {
      logger.warn({ connId, bufferedAmount: socket.bufferedAmount }, 'rxmcp ws: slow consumer closed');
      end(CLOSE_TRY_AGAIN_LATER, `slow consumer: over ${limits.maxBufferedBytes} bytes of outbound data unread`);
      return;
    }
    // Like the check above, before sending: the biggest holders may include this socket.
    budget.enforce();
    if (socket.readyState !== socket.OPEN) return;
    // A reply that does not serialise is still answered (an internal error); anything else is dropped.
    const frame = encodeMessage(message);
    if (frame === null) {
      logger.error({ connId }, 'rxmcp ws: outbound message is not serializable; dropped');
      return;
    }
    // The callback runs when the frame has been flushed: what the socket holds has changed.
    socket.send(frame, recount);
    recount();
  };

  const inbound$ = new Observable<unknown>((subscriber) => {
    // One client per socket, repeating its modern envelope: parsed once (repeated-envelope.ts).
    const envelopes = new RepeatedEnvelopeParser();
    const onMessage = (data: RawData, isBinary: boolean) => {
      const decoded = decodeFrame(data, isBinary, envelopes.parse);
      if (decoded.ok) subscriber.next(decoded.message);
      else send(parseError(decoded.detail));
    };
    socket.on('message', onMessage);
    return () => socket.off('message', onMessage);
  });

  socket.on('error', (error) => logger.debug({ connId, err: error }, 'rxmcp ws: socket error'));
  socket.once('close', (code) => {
    logger.debug({ connId, code }, 'rxmcp ws: socket closed');
    stopCounting();
    connection.unsubscribe();
    closing.unsubscribe();
  });

  connection.add(
    server.connect(connId, inbound$, connectOptionsOf('ws', context.peer, context.principal)).subscribe(
      guardedObserver(logger, 'rxmcp ws', {
        next: (message: OutboundMessage) => send(message),
        complete: () => end(CLOSE_NORMAL, 'connection ended'),
      }),
    ),
  );
  if (limits.pingIntervalMs !== null) connection.add(keepAlive(socket, limits.pingIntervalMs, scheduler));
  const expiry = watchExpiry(context.principal, scheduler, () => {
    logger.info({ connId }, 'rxmcp ws: token expired; socket closed');
    end(CLOSE_TOKEN_EXPIRED, 'token expired');
  });
  if (expiry !== undefined) connection.add(expiry);
  logger.debug({ connId }, 'rxmcp ws: connection opened');
  return { connId, end };
}
