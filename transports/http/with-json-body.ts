/**
 * withJsonBody: a POST's body read and parsed under the body limit, then
 * handed on; an oversize body is 413 (and the connection closed, since the
 * rest of it is not read), bad JSON is the parse error, and a throw while
 * handling it is the handler's 500. Both POST endpoints (streamable and
 * legacy) read their bodies this way, from whatever body source the
 * handler has.
 */
import type { HttpContext } from './context.js';
import type { RequestHead, ResponseSink } from './exchange.js';
import { sendJson } from './responses.js';

export function withJsonBody<Req extends RequestHead>(
  ctx: HttpContext<Req>,
  req: Req,
  res: ResponseSink,
  onJson: (value: unknown) => void,
): void {
  ctx.readBody(
    req,
    ctx.options.maxBodyBytes,
    (body) => {
      try {
        if (body.ok) return onJson(body.value);
        if (body.status === 500) ctx.logger.error('MCP HTTP handler: the request body was read before it and none was left');
        sendJson(res, body.status, body.body, body.status === 413 ? { Connection: 'close' } : {});
      } catch (error) {
        ctx.fail(res, error);
      }
    },
    (error) => {
      // The connection closed mid-body (the client left, or a body timeout cut it): nobody to answer, nothing failed here.
      if ((req as { socket?: { destroyed?: boolean } }).socket?.destroyed === true) ctx.logger.debug({ err: error }, 'request body not read to the end: the connection closed');
      else ctx.fail(res, error);
    },
  );
}
