/**
 * Serving one modern (2026-07-28) POST statelessly: no session is minted,
 * named or held. The request gets a connection of its own to the server for
 * as long as it runs (McpServer.serveOne: per-message era, its owner key,
 * the principal's or else the HTTP peer's, as its fairness key, so admission
 * and per-owner fairness count it as any other call), and nothing else.
 *
 * - The reply is one JSON body: 200, or 400 for -32021 (a capability the
 *   request did not declare), the one handler error the spec puts on HTTP.
 * - When the client accepts `text/event-stream`, the request's own
 *   notifications (progress, log lines at its `_meta` level) open an SSE
 *   stream on their first one; the reply then ends it. A reply with no
 *   notification before it is still plain JSON.
 * - Anything not about this request (broadcasts, list_changed) is dropped,
 *   and a server-to-client request never goes out (the core answers a
 *   modern request's need for input in-band instead).
 * - The client closing the response is the cancellation: the connection is
 *   ended, which aborts the handler's signal, and nothing more is written.
 *
 * `closeAll` (the handler closing) cancels every request in flight.
 */
import type { Principal } from '../../lib/auth/principal.js';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../../lib/errors.js';
import { encodeMessage } from '../../lib/protocol/encode.js';
import type { JsonRpcId, OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { relatedRequestOf } from '../../lib/protocol/related.js';
import type { ConnectOptions } from '../../streams/entry-options.js';
import type { ReadEnvelope } from '../../lib/protocol/modern.js';
import { mintConnId } from '../conn-id.js';
import { peerOf } from '../peer.js';
import type { HttpContext } from './context.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { refuse } from './responses.js';
import type { SseWriter } from './sse-writer.js';
import { connectOptionsOf } from '../connect-options.js';

function isReply(message: OutboundMessage): message is Extract<OutboundMessage, { id: JsonRpcId; error?: unknown }> {
  return !('method' in message);
}

function replyStatus(message: OutboundMessage): number {
  const error = (message as { error?: { code?: unknown } }).error;
  return error?.code === MISSING_REQUIRED_CLIENT_CAPABILITY ? 400 : 200;
}

/**
 * One modern POST in flight: the connection's observer (its messages are
 * routed here) and the exchange's end. One object per request, its methods
 * shared, rather than a closure per step.
 */
class ModernExchange {
  writer: SseWriter | undefined;
  over = false;
  /** Ends the request's connection (set once serveOne has returned). */
  end: (() => void) | undefined;

  constructor(
    private readonly owner: ModernExchanges,
    private readonly ctx: HttpContext,
    private readonly res: ResponseSink,
    private readonly connId: string,
    private readonly requestId: JsonRpcId,
    private readonly acceptsSse: boolean,
  ) {}

  /** The exchange is over (answered, peer gone, handler closed): the connection goes, which cancels what still runs. */
  readonly finish = (): void => {
    if (this.over) return;
    this.over = true;
    this.owner.forget(this);
    this.end?.();
  };

  /** The handler closes. */
  shutDown(): void {
    this.finish();
    if (this.writer !== undefined) this.writer.end();
    else refuse(this.res, 503, 'Service Unavailable: this MCP HTTP handler is closed');
  }

  /** A message of the request's connection (the core logs what this throws). */
  readonly deliver = (out: OutboundMessage): void => {
    if (this.over) return;
    const data = encodeMessage(out);
    if (data === null) {
      this.ctx.logger.warn({ connId: this.connId }, 'unserialisable server message dropped');
      return;
    }
    if (isReply(out)) return this.answer(out, data);
    if ('id' in out) {
      this.ctx.logger.warn({ connId: this.connId, method: out.method }, 'server-to-client request on a modern HTTP exchange dropped');
      return;
    }
    if (!this.acceptsSse || relatedRequestOf(out) !== this.requestId) return;
    if (this.writer === undefined) {
      this.writer = this.ctx.openWriter(this.res, this.connId);
      this.writer.onClose(this.finish);
      this.writer.open();
    }
    this.writer.event({ data });
  };

  private answer(reply: OutboundMessage, data: string): void {
    this.finish();
    const { writer, res } = this;
    if (writer !== undefined) {
      writer.event({ data });
      writer.end();
      return;
    }
    if (res.headersSent || res.destroyed) return;
    res.writeHead(replyStatus(reply), ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(data))]);
    res.end(data);
  }
}

export class ModernExchanges {
  private readonly inFlight = new Set<ModernExchange>();

  constructor(private readonly ctx: HttpContext) {}

  /** Modern requests being served now. */
  get size(): number {
    return this.inFlight.size;
  }

  /** `read`: the request's envelope as classify-era read it (the core takes it instead of reading it again). */
  serve(req: RequestHead, res: ResponseSink, message: unknown, requestId: JsonRpcId, acceptsSse: boolean, principal?: Principal, read?: ReadEnvelope): void {
    const { ctx } = this;
    const connId = mintConnId('mcp-modern');
    const exchange = new ModernExchange(this, ctx, res, connId, requestId, acceptsSse);
    this.inFlight.add(exchange);
    res.on('close', exchange.finish);
    const peer = peerOf(req, ctx.options.trustedProxyHeader);
    // Written out, not a conditional spread (V8's slow path for such a literal).
    const options: ConnectOptions = connectOptionsOf('http', peer, principal);
    const end = ctx.server.serveOne(connId, message, options, exchange.deliver, read);
    // Answered before serveOne returned (the common case: a synchronous handler): the connection goes now.
    if (exchange.over) end();
    else exchange.end = end;
  }

  /** @internal The exchange is over. */
  forget(exchange: ModernExchange): void {
    this.inFlight.delete(exchange);
  }

  closeAll(): void {
    for (const exchange of [...this.inFlight]) exchange.shutDown();
  }
}

/** One handler's modern exchanges, kept beside its context (nothing of them lives in the session code). */
const exchanges = new WeakMap<HttpContext, ModernExchanges>();

export function modernExchangesOf(ctx: HttpContext): ModernExchanges {
  let found = exchanges.get(ctx);
  if (found === undefined) {
    found = new ModernExchanges(ctx);
    exchanges.set(ctx, found);
  }
  return found;
}
