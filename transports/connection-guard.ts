/**
 * guardConnections: the socket-level guard of a `node:http` listener we own.
 *
 * - A cap on open sockets, in all and per remote address, checked at
 *   accept: one past either is closed at once, before it costs more than
 *   its accept. Sockets stay counted until they close, whatever they became
 *   (a long SSE stream, a WebSocket), so the cap bounds file descriptors.
 *   One address holding its share leaves the rest for others (`/health`
 *   among them).
 * - Three timeouts on the server's scheduler, each a DeadlineQueue (one
 *   timer for all sockets, kept armed while the listener lives: a request
 *   on a keep-alive socket moves its entry between queues and arms no
 *   timer), at most one entry per socket:
 *   headers (from accept until the first request's headers have arrived:
 *   answered 408 and closed), body (from a request's headers until its body
 *   has arrived: 408 if no answer has started, then closed) and idle (a
 *   keep-alive socket with no request in progress: closed). Later requests
 *   on a keep-alive socket are covered by the idle timeout, which runs until
 *   their headers have arrived.
 * A socket taken over by a WebSocket (`markTakenOver`) is left to the
 * WebSocket's own liveness; an upgrade nobody completed is closed at the
 * headers timeout like any request that never came.
 *
 * Node's own `headersTimeout`, `requestTimeout` and `keepAliveTimeout` are set
 * a little past ours, as a backstop on the real clock.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SchedulerLike } from 'rxjs';
import { DeadlineQueue, type DeadlineEntry, type Expiring } from '../lib/deadline-queue.js';
import { transportRefusal } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { ConnectionLimits } from './connection-limits.js';

/** Set on a socket a WebSocket took over: its liveness is the WebSocket's now. */
const TAKEN_OVER = Symbol('rxmcp.socketTakenOver');

/** Marks a socket as taken over by a WebSocket (no more HTTP timeouts apply to it). */
export function markTakenOver(socket: object): void {
  (socket as { [TAKEN_OVER]?: boolean })[TAKEN_OVER] = true;
}

function isTakenOver(socket: object): boolean {
  return (socket as { [TAKEN_OVER]?: boolean })[TAKEN_OVER] === true;
}

export interface ConnectionGuard {
  /** Sockets open now. */
  readonly sockets: number;
  /** Sockets closed at accept for being over a cap, so far. */
  readonly refused: number;
  /** Stops guarding: listeners and timers go (sockets already open are left as they are). */
  stop(): void;
}

/**
 * One socket: its address, its requests in flight, and the one timeout it
 * waits on (if any). What a timeout does is a function of the guard's, given
 * the socket's state, and the listeners a request needs are made once per
 * socket and read the request in progress from here: a request on a
 * keep-alive socket allocates no closure of the guard's.
 */
class Tracked implements Expiring {
  /** Requests whose responses have not finished. */
  active = 0;
  entry: DeadlineEntry | undefined = undefined;
  queue: DeadlineQueue | undefined = undefined;
  onExpire: ((state: Tracked) => void) | undefined = undefined;
  /** The response of the request whose body is arriving (a socket reads one body at a time). */
  bodyResponse: ServerResponse | undefined = undefined;
  /** Listens for a request's 'end': its body has arrived. */
  readonly bodyArrived: () => void;
  /** Listens for a response's 'close': it finished or was abandoned. */
  readonly responseClosed: () => void;

  constructor(
    readonly socket: Socket,
    readonly address: string,
    onBodyArrived: (state: Tracked) => void,
    onResponseClosed: (state: Tracked) => void,
  ) {
    this.bodyArrived = () => onBodyArrived(this);
    this.responseClosed = () => onResponseClosed(this);
  }

  /** The DeadlineQueue's target: the timeout it waited on has passed. */
  expire(): void {
    const onExpire = this.onExpire;
    this.entry = undefined;
    this.queue = undefined;
    this.onExpire = undefined;
    if (onExpire !== undefined && !isTakenOver(this.socket)) onExpire(this);
  }
}

/** Backstop margin for Node's own timeouts, which it checks only every few seconds anyway. */
const NODE_BACKSTOP_MS = 1000;

function addressOf(socket: Socket): string | undefined {
  const address = socket.remoteAddress;
  // An IPv4 peer on a dual-stack listener is the same address as on an IPv4 one.
  return address?.startsWith('::ffff:') ? address.slice(7) : address;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

const REQUEST_TIMEOUT =
  'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 40\r\n\r\n' +
  'request headers took too long to arrive\n';

export function guardConnections(server: Server, limits: ConnectionLimits, scheduler: SchedulerLike, logger: Logger): ConnectionGuard {
  const tracked = new Map<Socket, Tracked>();
  const perAddress = new Map<string, number>();
  let refused = 0;

  server.headersTimeout = limits.headersTimeoutMs + NODE_BACKSTOP_MS;
  server.requestTimeout = limits.headersTimeoutMs + limits.bodyTimeoutMs + NODE_BACKSTOP_MS;
  server.keepAliveTimeout = limits.idleSocketTimeoutMs + NODE_BACKSTOP_MS;

  const headersDue = new DeadlineQueue(scheduler, limits.headersTimeoutMs, true);
  const bodyDue = new DeadlineQueue(scheduler, limits.bodyTimeoutMs, true);
  const idleDue = new DeadlineQueue(scheduler, limits.idleSocketTimeoutMs, true);

  const arm = (state: Tracked, queue: DeadlineQueue, expire: (state: Tracked) => void): void => {
    disarm(state);
    state.onExpire = expire;
    state.queue = queue;
    state.entry = queue.add(state);
  };

  const disarm = (state: Tracked): void => {
    if (state.entry !== undefined) state.queue!.remove(state.entry);
    state.entry = undefined;
    state.queue = undefined;
    state.onExpire = undefined;
  };

  let nextLogAt = 1;
  const refuse = (socket: Socket, address: string, cap: string): void => {
    refused += 1;
    // Logged at 1, 10, 100, ... refusals: a flood must not become a log flood.
    if (refused >= nextLogAt) {
      nextLogAt *= 10;
      logger.warn({ address, cap, refused }, 'rxmcp: socket closed at accept: over its cap');
    }
    socket.destroy();
  };

  const headersTooSlow = ({ socket, address }: Tracked): void => {
    logger.debug({ address }, 'rxmcp: request headers too slow; socket closed');
    if (socket.writable) socket.write(REQUEST_TIMEOUT);
    socket.destroy();
  };

  const bodyTooSlow = (state: Tracked): void => {
    const { socket } = state;
    const res = state.bodyResponse;
    state.bodyResponse = undefined;
    logger.debug({ address: state.address }, 'rxmcp: request body too slow; socket closed');
    if (res === undefined || res.headersSent || res.destroyed) return void socket.destroy();
    const body = JSON.stringify(transportRefusal(`Request Timeout: the body took longer than ${limits.bodyTimeoutMs} ms to arrive`));
    res.writeHead(408, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
    res.end(body, () => socket.destroy());
  };

  const idleTooLong = ({ socket }: Tracked): void => void socket.destroy();

  const bodyArrived = (state: Tracked): void => {
    state.bodyResponse = undefined;
    if (state.active > 0) disarm(state);
  };

  const responseClosed = (state: Tracked): void => {
    state.active -= 1;
    if (state.active > 0 || state.socket.destroyed) return;
    arm(state, idleDue, idleTooLong);
  };

  const onConnection = (socket: Socket): void => {
    const address = addressOf(socket);
    if (address === undefined) return void socket.destroy();
    if (tracked.size >= limits.maxSockets) return refuse(socket, address, 'maxSockets');
    const fromAddress = perAddress.get(address) ?? 0;
    if (fromAddress >= limits.maxSocketsPerAddress) return refuse(socket, address, 'maxSocketsPerAddress');
    perAddress.set(address, fromAddress + 1);
    const state = new Tracked(socket, address, bodyArrived, responseClosed);
    tracked.set(socket, state);
    socket.once('close', () => {
      disarm(state);
      state.bodyResponse = undefined;
      tracked.delete(socket);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    arm(state, headersDue, headersTooSlow);
  };

  // Listeners with `on`, not `once`: each request and response emits these once and is then dropped, so a once wrapper would only cost.
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const state = tracked.get(req.socket);
    if (state === undefined) return;
    state.active += 1;
    disarm(state);
    if (hasBody(req) && !req.complete) {
      state.bodyResponse = res;
      arm(state, bodyDue, bodyTooSlow);
      req.on('end', state.bodyArrived);
    }
    res.on('close', state.responseClosed);
  };

  server.on('connection', onConnection);
  server.on('request', onRequest);
  return {
    get sockets() {
      return tracked.size;
    },
    get refused() {
      return refused;
    },
    stop() {
      server.off('connection', onConnection);
      server.off('request', onRequest);
      for (const state of tracked.values()) disarm(state);
      headersDue.clear();
      bodyDue.clear();
      idleDue.clear();
    },
  };
}
