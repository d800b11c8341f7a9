/**
 * Serving one modern (2026-07-28) POST statelessly: no session is minted,
 * named or held. The request gets a connection of its own to the server for
 * as long as it runs (`era: 'per-message'`, the HTTP peer as its fairness
 * key, so admission and per-peer fairness count it as any other call), and
 * nothing else.
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
 *   unsubscribed, which aborts the handler's signal, and nothing more is
 *   written.
 *
 * `closeAll` (the handler closing) cancels every request in flight.
 */
import type { Principal } from '../../lib/auth/principal.js';
import { concat, NEVER, of, Subscription } from 'rxjs';
import { MISSING_REQUIRED_CLIENT_CAPABILITY } from '../../lib/errors.js';
import { guardedObserver } from '../../lib/guarded.js';
import { encodeMessage } from '../../lib/protocol/encode.js';
import type { JsonRpcId, OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { relatedRequestOf } from '../../lib/protocol/related.js';
import { mintConnId } from '../conn-id.js';
import { peerOf } from '../peer.js';
import type { HttpContext } from './context.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { refuse } from './responses.js';
import type { SseWriter } from './sse-writer.js';

function isReply(message: OutboundMessage): message is Extract<OutboundMessage, { id: JsonRpcId; error?: unknown }> {
  return !('method' in message);
}

function replyStatus(message: OutboundMessage): number {
  const error = (message as { error?: { code?: unknown } }).error;
  return error?.code === MISSING_REQUIRED_CLIENT_CAPABILITY ? 400 : 200;
}

export class ModernExchanges {
  private readonly inFlight = new Set<() => void>();

  constructor(private readonly ctx: HttpContext) {}

  /** Modern requests being served now. */
  get size(): number {
    return this.inFlight.size;
  }

  serve(req: RequestHead, res: ResponseSink, message: unknown, requestId: JsonRpcId, acceptsSse: boolean, principal?: Principal): void {
    const { ctx } = this;
    const connId = mintConnId('mcp-modern');
    const subscription = new Subscription();
    let writer: SseWriter | undefined;
    let over = false;

    const finish = (): void => {
      if (over) return;
      over = true;
      this.inFlight.delete(shutDown);
      subscription.unsubscribe();
    };
    const shutDown = (): void => {
      finish();
      if (writer !== undefined) writer.end();
      else refuse(res, 503, 'Service Unavailable: this MCP HTTP handler is closed');
    };

    const answer = (reply: OutboundMessage, data: string): void => {
      finish();
      if (writer !== undefined) {
        writer.event({ data });
        writer.end();
        return;
      }
      if (res.headersSent || res.destroyed) return;
      res.writeHead(replyStatus(reply), { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(data)) });
      res.end(data);
    };

    const route = (out: OutboundMessage): void => {
      if (over) return;
      const data = encodeMessage(out);
      if (data === null) {
        ctx.logger.warn({ connId }, 'unserialisable server message dropped');
        return;
      }
      if (isReply(out)) return answer(out, data);
      if ('id' in out) {
        ctx.logger.warn({ connId, method: out.method }, 'server-to-client request on a modern HTTP exchange dropped');
        return;
      }
      if (!acceptsSse || relatedRequestOf(out) !== requestId) return;
      if (writer === undefined) {
        writer = ctx.openWriter(res, connId);
        writer.onClose(finish);
        writer.open();
      }
      writer.event({ data });
    };

    this.inFlight.add(shutDown);
    res.on('close', finish);
    const peer = peerOf(req, ctx.options.trustedProxyHeader);
    subscription.add(
      ctx.server
        .connect(connId, concat(of(message), NEVER), { transport: 'http', era: 'per-message', peer, ...(principal === undefined ? {} : { principal }) })
        .subscribe(guardedObserver(ctx.logger, 'modern streamable HTTP', route)),
    );
  }

  closeAll(): void {
    for (const shutDown of [...this.inFlight]) shutDown();
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
