/**
 * One legacy HTTP+SSE session (legacy-sse.ts serves its GET and POSTs): the
 * stream it writes to is its connection, opened by `start` and ended by
 * `close`, and what a POST delivers is that connection's inbound.
 */
import { Subject, type Subscription } from 'rxjs';
import type { Principal } from '../../lib/auth/principal.js';
import { guardedObserver } from '../../lib/guarded.js';
import { encodeMessage } from '../../lib/protocol/encode.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { SseWriter } from './sse-writer.js';
import { connectOptionsOf } from '../connect-options.js';

export class LegacySseSession {
  readonly kind = 'legacy';
  private readonly inbound = new Subject<unknown>();
  private subscription: Subscription | undefined;
  private writer: SseWriter | undefined;

  constructor(
    readonly id: string,
    private readonly server: McpServer,
    /** The remote peer of the GET that opened the stream (with the principal, the server makes the connection's owner key of it). */
    private readonly peer: string,
    /** The principal of that GET: the session's owner. */
    readonly principal: Principal | undefined = undefined,
  ) {}

  /** Opens the stream, announces the POST endpoint, then connects. */
  start(writer: SseWriter, endpoint: string): void {
    this.writer = writer;
    writer.open();
    writer.event({ event: 'endpoint', data: endpoint });
    this.subscription = this.server
      .connect(this.id, this.inbound, connectOptionsOf('sse', this.peer, this.principal))
      .subscribe(
        guardedObserver(this.server.logger, 'legacy SSE', (message) => {
          const data = encodeMessage(message);
          if (data !== null) writer.event({ event: 'message', data });
        }),
      );
  }

  accept(message: unknown): void {
    this.inbound.next(message);
  }

  close(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.inbound.complete();
    this.writer?.end();
  }
}
