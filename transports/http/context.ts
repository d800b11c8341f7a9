/**
 * What the parts of one HTTP handler share: the server, the resolved
 * options, the session table, the factory of SSE writers (each one holds
 * its session open while it lasts and is counted in the handler's stats),
 * how a request's body is read (node's stream, a fetch Request, or what a
 * framework already parsed), and what to do with an unexpected failure.
 */
import type { Logger } from '../../lib/logger.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { BodyResult } from './body.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import type { LegacySseSession } from './legacy-sse-session.js';
import type { ResolvedHttpOptions } from './options.js';
import type { SessionTable } from './sessions.js';
import type { SseWriter } from './sse-writer.js';
import type { StreamableSession } from './streamable-session.js';

export type HttpSession = StreamableSession | LegacySseSession;

/** Reads `req`'s body under `maxBytes` and calls back once: with the JSON (or why not), or with a read error. */
export type BodySource<Req extends RequestHead> = (
  req: Req,
  maxBytes: number,
  done: (result: BodyResult) => void,
  failed: (error: Error) => void,
) => void;

/** `HttpContext` alone is any handler's context, for the parts that read no body. */
export interface HttpContext<Req extends RequestHead = never> {
  readonly server: McpServer;
  readonly options: ResolvedHttpOptions;
  readonly sessions: SessionTable<HttpSession>;
  readonly logger: Logger;
  readonly readBody: BodySource<Req>;
  /** A writer on `res` that holds `sessionId` open until it closes. */
  openWriter(res: ResponseSink, sessionId: string): SseWriter;
  /** The id of a new session: naming this node when there is a session directory. */
  mintSessionId(prefix: 'mcp' | 'sse'): string;
  /**
   * A request naming `sessionId`, which this handler does not hold: relayed to the live node that does
   * (`body` is what was read of it, if anything), or `notFound()` when there is none (or no directory).
   */
  relayOrNotFound(req: RequestHead, res: ResponseSink, sessionId: string, body: unknown, notFound: () => void): void;
  /** An unexpected failure while serving `res`: logged, then a 500 (or the connection cut, if the answer had started). */
  fail(res: ResponseSink, error: unknown): void;
}
