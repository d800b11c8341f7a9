/**
 * withJsonBody: a POST's body read and parsed under the body limit, then
 * handed on; an oversize body is 413 (and the connection closed, since the
 * rest of it is not read), bad JSON is the parse error, and a throw while
 * handling it is the handler's 500. Both POST endpoints (streamable and
 * legacy) read their bodies this way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody } from './body.js';
import type { HttpContext } from './context.js';
import { sendJson } from './responses.js';

export function withJsonBody(ctx: HttpContext, req: IncomingMessage, res: ServerResponse, onJson: (value: unknown) => void): void {
  readJsonBody(
    req,
    ctx.options.maxBodyBytes,
    (body) => {
      try {
        if (body.ok) onJson(body.value);
        else sendJson(res, body.status, body.body, body.status === 413 ? { Connection: 'close' } : {});
      } catch (error) {
        ctx.fail(res, error);
      }
    },
    (error) => {
      // The connection closed mid-body (the client left, or a body timeout cut it): nobody to answer, nothing failed here.
      if (req.socket.destroyed) ctx.logger.debug({ err: error }, 'request body not read to the end: the connection closed');
      else ctx.fail(res, error);
    },
  );
}
