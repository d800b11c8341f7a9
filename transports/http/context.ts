/**
 * What the parts of one HTTP handler share: the server, the resolved
 * options, the session table, the async context that ties server messages
 * to the POST they came from, and the factory of SSE writers (each one holds
 * its session open while it lasts and is counted in the handler's stats),
 * and what to do with an unexpected failure.
 */
import type { ServerResponse } from 'node:http';
import type { Logger } from '../../lib/logger.js';
import type { McpServer } from '../../lib/server.js';
import type { LegacySseSession } from './legacy-sse.js';
import type { ResolvedHttpOptions } from './options.js';
import type { SessionTable } from './sessions.js';
import type { SseWriter } from './sse-writer.js';
import type { StreamableSession } from './streamable-session.js';

export type HttpSession = StreamableSession | LegacySseSession;

export interface HttpContext {
  readonly server: McpServer;
  readonly options: ResolvedHttpOptions;
  readonly sessions: SessionTable<HttpSession>;
  readonly logger: Logger;
  /** A writer on `res` that holds `sessionId` open until it closes. */
  openWriter(res: ServerResponse, sessionId: string): SseWriter;
  /** An unexpected failure while serving `res`: logged, then a 500 (or the connection cut, if the answer had started). */
  fail(res: ServerResponse, error: unknown): void;
}
