/**
 * One streamable HTTP session: exactly one `server.connect(sessionId, ...)`
 * for its whole life, and the routing of what comes out of it onto the
 * session's HTTP streams.
 *
 * - A reply goes where its request came from: the POST's SSE stream (which
 *   then ends) or the POST's JSON answer.
 * - A server-to-client request or notification caused while handling a POST
 *   (an elicitation/create for a parked call, a notification sent by the
 *   tool) goes on that POST's stream, before its reply, while the stream is
 *   still waiting for it. "Caused by" is the request the core tagged the
 *   message with (`relatedRequestOf`): every message the server produces
 *   while serving a request carries it, on any clock. An untagged message
 *   (a broadcast a handler sent with server.notify) is not about the request,
 *   so it goes where the spec wants unrelated messages: a GET stream.
 * - Anything else (broadcasts, pushes after their request ended) goes on the
 *   newest open GET stream (at most `maxGetStreams` are open; one more ends
 *   the oldest), or waits in a bounded backlog until one opens.
 *
 * A new stream opens with a priming event (an id, empty data) only when the
 * session speaks 2025-11-25 or later: older revisions had no such event, and
 * their clients (the official SDK's among them) take its empty data for a
 * malformed message, as the SDK's own server knows.
 *
 * Every SSE event is appended to the event store under its stream, also when
 * the stream's connection has dropped, so `Last-Event-ID` can resume any
 * stream (POST or GET) from where the client lost it; a shared store's
 * replay may arrive later (later-replay.ts). Closing the session
 * unsubscribes the connection: its parked calls are dropped, its workers
 * aborted.
 */
import { Subject, type Subscription } from 'rxjs';
import { guardedObserver } from '../../lib/guarded.js';
import type { Logger } from '../../lib/logger.js';
import { encodeMessage } from '../../lib/protocol/encode.js';
import type { JsonRpcId, OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { isPlainObject } from '../../lib/protocol/jsonrpc.js';
import { relatedRequestOf } from '../../lib/protocol/related.js';
import { negotiateProtocolVersion } from '../../lib/protocol/versions.js';
import { AuthenticatedMessage } from '../../lib/auth/authenticated.js';
import type { Principal } from '../../lib/auth/principal.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { EventStore, Replay } from '../../lib/ports/event-store.js';
import { isPromiseLike, LaterReplays } from './later-replay.js';
import type { SseWriter } from './sse-writer.js';
import { formatSseEvent, primingEvent, type SseEvent } from './sse-format.js';
import { connectOptionsOf } from '../connect-options.js';

/** Where a JSON-mode POST's reply goes. */
export interface ReplyWaiter {
  settle(data: string): void;
  /** No reply will come: the request was cancelled, or the session closed. */
  abandon(reason: 'cancelled' | 'closed'): void;
}

interface PostStream {
  readonly kind: 'post';
  readonly id: string;
  writer: SseWriter | undefined;
  /**
   * While its request is being fed (before any writer exists): the events it
   * was given, in order; undefined once the stream is on a writer.
   */
  early: SseEvent[] | undefined;
  /** Its reply came (or the session closed) while it was early: the stream is whole. */
  endedEarly: boolean;
}

/**
 * Where a POST's event stream goes. Most replies are ready in the turn their
 * request is fed (a synchronous tool, a list): such a stream is whole at once
 * and goes out as one body, with no writer, pump or timer for a turn's work.
 * Anything still waiting after the turn goes on a writer, as does a stream
 * `whole` declines.
 */
export interface PostStreamSink {
  /** The whole stream's text (its priming event, events and reply): true when it was sent as one body. */
  whole(text: string): boolean;
  /** A writer for the stream, opened (its headers on their way). */
  open(): SseWriter;
}

interface JsonSink {
  readonly kind: 'json';
  readonly waiter: ReplyWaiter;
}

interface GetStream {
  readonly kind: 'get';
  readonly id: string;
  readonly writer: SseWriter;
}

/** The async-context value: which POST a message was fed from. */
export type RoutingOrigin = PostStream | JsonSink;

export interface StreamableSessionDeps {
  readonly server: McpServer;
  readonly store: EventStore;
  readonly retryMs: number;
  readonly maxBacklogMessages: number;
  readonly maxGetStreams: number;
  readonly logger: Logger;
  /** The remote peer of the request that created the session (with the principal, the server makes the connection's owner key of it). */
  readonly peer: string;
  /** The principal of the request that created the session: its owner (principal-binding.ts). */
  readonly principal?: Principal | undefined;
}

/** The first revision whose clients expect (and can read) a priming event. */
const PRIMING_SINCE = '2025-11-25';

const LISTENER_PREFIX = 'g';
const POST_PREFIX = 'p';

type RequestKey = string | number;

/** The key of a `null` id, marked so it cannot meet a string id. */
const NULL_KEY = '\u0000null';

/**
 * A Map key per distinct id: numbers and strings as themselves (a string that
 * starts with the mark gets another), null as NULL_KEY. Ids are checked at the
 * envelope (string, number or null), so nothing here is ever stringified.
 */
function requestKey(id: JsonRpcId): RequestKey {
  if (typeof id === 'number') return id;
  if (id === null) return NULL_KEY;
  return id.charCodeAt(0) !== 0 ? id : `\u0000${id}`;
}

export class StreamableSession {
  readonly kind = 'streamable';
  readonly principal: Principal | undefined;
  private readonly inbound = new Subject<unknown>();
  private readonly subscription: Subscription;
  /** Requests waiting for their reply, by id. */
  private readonly awaiting = new Map<RequestKey, PostStream | JsonSink>();
  /** POST streams still waiting for their reply, by stream id. */
  private readonly postStreams = new Map<string, PostStream>();
  /** Open GET streams, oldest first. */
  private readonly listeners: GetStream[] = [];
  private readonly backlog: string[] = [];
  private streamCount = 0;
  private closed = false;
  /** Resumptions waiting on a shared store's replay. */
  private readonly laterReplays: LaterReplays;
  private readonly feed = (message: unknown): void => this.inbound.next(message);
  /** The revision the session's initialize negotiated (dates compare as strings). */
  private protocolVersion = '';

  constructor(
    readonly id: string,
    private readonly deps: StreamableSessionDeps,
  ) {
    this.principal = deps.principal;
    this.laterReplays = new LaterReplays(deps.maxBacklogMessages);
    this.subscription = deps.server
      .connect(id, this.inbound, connectOptionsOf('http', deps.peer, deps.principal))
      .subscribe(guardedObserver(deps.logger, 'streamable HTTP', (message) => this.route(message)));
  }

  isAwaiting(requestId: JsonRpcId): boolean {
    return this.awaiting.has(requestKey(requestId));
  }

  /** An initialize on this session: the revision the server answers it with, by the same rule as the server. */
  initializing(requestedVersion: unknown): void {
    this.protocolVersion = negotiateProtocolVersion(requestedVersion);
  }

  /**
   * A request whose messages and reply go on an event stream, after a
   * priming event: as one body when the reply came in the turn it was fed,
   * else on a writer the sink opens then (the events so far first).
   */
  requestOverSse(message: unknown, requestId: JsonRpcId, sink: PostStreamSink): void {
    const stream: PostStream = { kind: 'post', id: this.newStreamId(POST_PREFIX), writer: undefined, early: [], endedEarly: false };
    this.awaiting.set(requestKey(requestId), stream);
    this.postStreams.set(stream.id, stream);
    this.prime(stream);
    this.feed(message);
    const early = stream.early!;
    stream.early = undefined;
    if (stream.endedEarly && sink.whole(wholeText(early))) return;
    const writer = sink.open();
    for (const event of early) writer.event(event);
    if (stream.endedEarly) return writer.end();
    stream.writer = writer;
    this.detachOnClose(stream, writer);
  }

  /** A request answered with one JSON body. */
  requestOverJson(message: unknown, requestId: JsonRpcId, waiter: ReplyWaiter): void {
    const sink: JsonSink = { kind: 'json', waiter };
    this.awaiting.set(requestKey(requestId), sink);
    this.feed(message);
  }

  /** A notification or a response (an elicitation answer): nothing comes back on this POST. */
  accept(inbound: unknown): void {
    this.feed(inbound);
    const message = inbound instanceof AuthenticatedMessage ? inbound.message : inbound;
    if (!isPlainObject(message) || message.method !== 'notifications/cancelled') return;
    const params = message.params;
    // A requestId no request can have is dropped by the server too: nothing to end.
    if (!isPlainObject(params) || !(typeof params.requestId === 'string' || typeof params.requestId === 'number')) return;
    // The server has dropped the call (no reply will come): end what waits for it.
    const key = requestKey(params.requestId);
    const sink = this.awaiting.get(key);
    if (sink === undefined) return;
    this.awaiting.delete(key);
    if (sink.kind === 'json') sink.waiter.abandon('cancelled');
    else this.finish(sink);
  }

  /**
   * A GET: resumes the stream `lastEventId` belongs to (replay, then live
   * while it lasts), or opens a new standalone stream. False when there is
   * nothing to resume (a finished POST stream fully delivered): the caller
   * answers 204 and `writer` was not opened.
   */
  listen(writer: SseWriter, lastEventId: string | undefined): boolean | Promise<boolean> {
    const replay = lastEventId === undefined ? undefined : this.deps.store.replayAfter(this.id, lastEventId);
    if (isPromiseLike(replay)) return this.resumeLater(writer, replay);
    if (replay !== undefined) return this.resume(writer, replay);
    return this.openListener(writer);
  }

  private openListener(writer: SseWriter): true {
    const stream: GetStream = { kind: 'get', id: this.newStreamId(LISTENER_PREFIX), writer };
    writer.open();
    this.prime(stream);
    this.attachListener(stream);
    return true;
  }

  /** A replay a shared store answers later: nothing sent meanwhile falls between it and the live stream (later-replay.ts). */
  private async resumeLater(writer: SseWriter, pending: PromiseLike<Replay | undefined>): Promise<boolean> {
    const { replay, overflowed } = await this.laterReplays.await(pending);
    if (this.closed || writer.closed) {
      writer.end();
      return true;
    }
    if (replay === undefined) return this.openListener(writer);
    if (!overflowed) return this.resume(writer, replay);
    writer.open();
    for (const event of replay.events) writer.event(event);
    writer.end();
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscription.unsubscribe();
    this.inbound.complete();
    for (const sink of this.awaiting.values()) {
      if (sink.kind === 'json') sink.waiter.abandon('closed');
    }
    for (const stream of this.postStreams.values()) this.endStream(stream);
    for (const stream of [...this.listeners]) stream.writer.end();
    this.awaiting.clear();
    this.postStreams.clear();
    this.backlog.length = 0;
    this.deps.store.deleteSession(this.id);
  }

  private resume(writer: SseWriter, replay: Replay): boolean {
    const post = this.postStreams.get(replay.streamId);
    const isListener = replay.streamId.startsWith(LISTENER_PREFIX);
    if (post === undefined && !isListener && replay.events.length === 0) return false;
    writer.open();
    for (const event of replay.events) writer.event(event);
    if (post !== undefined) {
      const previous = post.writer;
      post.writer = writer;
      this.detachOnClose(post, writer);
      previous?.end();
    } else if (isListener) {
      this.attachListener({ kind: 'get', id: replay.streamId, writer });
    } else {
      writer.end(); // a finished POST stream: the replay was all it had left
    }
    return true;
  }

  private attachListener(stream: GetStream): void {
    for (const other of this.listeners.filter((l) => l.id === stream.id)) other.writer.end();
    // Bounded: a newcomer (often a reconnect the server has not seen drop yet) ends the oldest.
    while (this.listeners.length >= this.deps.maxGetStreams) this.listeners.shift()!.writer.end();
    this.listeners.push(stream);
    stream.writer.onClose(() => {
      const at = this.listeners.indexOf(stream);
      if (at >= 0) this.listeners.splice(at, 1);
    });
    for (const data of this.backlog.splice(0)) this.emit(stream, data);
  }

  private prime(stream: PostStream | GetStream): void {
    if (this.protocolVersion < PRIMING_SINCE) return;
    this.deliver(stream, primingEvent(this.deps.store.append(this.id, stream.id, null), this.deps.retryMs));
  }

  /** An event onto a stream: kept while its POST is still being fed (no writer yet), else on its writer. */
  private deliver(stream: PostStream | GetStream, event: SseEvent): void {
    if (stream.kind === 'post' && stream.early !== undefined) stream.early.push(event);
    else stream.writer?.event(event);
  }

  private detachOnClose(stream: PostStream, writer: SseWriter): void {
    writer.onClose(() => {
      if (stream.writer === writer) stream.writer = undefined;
    });
  }

  private route(message: OutboundMessage): void {
    const data = encodeMessage(message);
    if (data === null) {
      this.deps.logger.warn({ sessionId: this.id }, 'unserialisable server message dropped');
      return;
    }
    if (!('method' in message)) {
      const key = requestKey(message.id);
      const sink = this.awaiting.get(key);
      if (sink === undefined) {
        this.deps.logger.debug({ sessionId: this.id, id: message.id }, 'reply for a request no longer awaited; dropped');
        return;
      }
      this.awaiting.delete(key);
      if (sink.kind === 'json') {
        sink.waiter.settle(data);
      } else {
        this.emit(sink, data);
        this.finish(sink);
      }
      return;
    }
    const related = relatedRequestOf(message);
    const origin = related === undefined ? undefined : this.awaiting.get(requestKey(related));
    if (origin?.kind === 'post' && this.postStreams.get(origin.id) === origin) this.emit(origin, data);
    else this.toListener(data);
  }

  private toListener(data: string): void {
    const listener = this.listeners[this.listeners.length - 1];
    if (listener !== undefined) {
      this.emit(listener, data);
      return;
    }
    this.backlog.push(data);
    if (this.backlog.length > this.deps.maxBacklogMessages) {
      this.backlog.shift();
      this.deps.logger.warn({ sessionId: this.id }, 'no GET stream open: oldest undelivered message dropped');
    }
  }

  private emit(stream: PostStream | GetStream, data: string): void {
    const id = this.deps.store.append(this.id, stream.id, data);
    this.laterReplays.sent(stream.id, id, data);
    this.deliver(stream, { id, data });
  }

  /** A POST stream's reply is out (or will never come): the stream is over. */
  private finish(stream: PostStream): void {
    this.postStreams.delete(stream.id);
    this.endStream(stream);
  }

  /** The stream gets nothing more: its writer ends, or an early stream is whole. */
  private endStream(stream: PostStream): void {
    if (stream.early !== undefined) {
      stream.endedEarly = true;
      return;
    }
    const writer = stream.writer;
    stream.writer = undefined;
    writer?.end();
  }

  private newStreamId(prefix: string): string {
    this.streamCount += 1;
    return `${prefix}${this.streamCount}`;
  }
}

function wholeText(events: readonly SseEvent[]): string {
  let text = '';
  for (const event of events) text += formatSseEvent(event);
  return text;
}
