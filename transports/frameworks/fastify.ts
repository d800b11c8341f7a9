/**
 * `rxmcp/fastify`: the HTTP transport as a Fastify 5 plugin.
 *
 * It registers the transport's routes (the endpoint's GET, POST and DELETE,
 * the health check, the legacy `/sse` and `/messages`) under the plugin's
 * prefix, so every other route stays the app's, and hands each request to
 * the transport's router on the raw request and response (`reply.hijack()`:
 * streams are the transport's to write). Fastify's own parser reads the
 * body, with the transport's `maxBodyBytes` as the routes' `bodyLimit`;
 * what it refuses (too large, not JSON, an unknown media type) is answered
 * in the transport's JSON-RPC shapes. Closing the app ends the sessions.
 *
 * Only Fastify's types are imported: nothing of it is loaded by this module.
 *
 * @module rxmcp/fastify
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseError, transportRefusal } from '../../lib/errors.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { BodyResult } from '../http/body.js';
import { fromReadBody } from '../http/body.js';
import { readNodeBody } from '../http/node-body.js';
import type { HttpHandlerOptions, ResolvedHttpOptions } from '../http/options.js';
import { createHttpRouter, type HttpHandlerStats } from '../http/router.js';

export type { HttpHandlerOptions } from '../http/options.js';
export type { HttpHandlerStats } from '../http/router.js';

/** A Fastify 5 plugin serving the HTTP transport's routes under its prefix. */
export interface FastifyMcpPlugin {
  (instance: FastifyInstance): Promise<void>;
  /** Ends every session and stream (closing the app does it too). */
  close(): void;
  /** Its sessions and open streams. */
  stats(): HttpHandlerStats;
  readonly options: ResolvedHttpOptions;
}

function readFastifyBody(request: FastifyRequest, maxBytes: number, done: (result: BodyResult) => void, failed: (error: Error) => void): void {
  if (request.body !== undefined) return done(fromReadBody(request.body, maxBytes));
  readNodeBody(request.raw, maxBytes, done, failed);
}

/** Fastify's refusals of a body, in the transport's shapes; anything else goes to the app's error handler. */
function bodyRefusal(error: FastifyError, maxBytes: number): { status: number; body: unknown } | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, body: transportRefusal(`Payload Too Large: the body limit is ${maxBytes} bytes`) };
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, body: parseError(error.message) };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, body: transportRefusal('Unsupported Media Type: POST a JSON-RPC message as application/json') };
    default:
      return undefined;
  }
}

/** The HTTP transport as a Fastify 5 plugin: `app.register(createFastifyPlugin(server), { prefix })`. */
export function createFastifyPlugin(server: McpServer, options: HttpHandlerOptions = {}): FastifyMcpPlugin {
  const router = createHttpRouter<FastifyRequest>(server, options, readFastifyBody);
  const { endpoint, healthPath, ssePath, messagesPath, maxBodyBytes } = router.options;

  const plugin = (async (instance: FastifyInstance) => {
    const serve = (pathname: string) => (request: FastifyRequest, reply: FastifyReply) => {
      reply.hijack();
      router.route(request, reply.raw, { pathname, url: request.raw.url ?? '/', mount: instance.prefix });
    };
    type Method = 'GET' | 'POST' | 'DELETE' | 'OPTIONS';
    const route = (method: Method | Method[], pathname: string | null) => {
      if (pathname !== null) instance.route({ method, url: pathname, bodyLimit: maxBodyBytes, handler: serve(pathname) });
    };
    instance.setErrorHandler(async (error: FastifyError, _request, reply) => {
      const refusal = bodyRefusal(error, maxBodyBytes);
      if (refusal === undefined) throw error;
      return reply.code(refusal.status).send(refusal.body);
    });
    // Before the server waits for its connections: the open streams are among them.
    instance.addHook('preClose', async () => router.close());
    route(['GET', 'POST', 'DELETE'], endpoint);
    route('GET', healthPath);
    route('GET', ssePath);
    route('POST', messagesPath);
    // With an authenticator: the Protected Resource Metadata (Fastify answers HEAD for a GET route itself).
    const wellKnown = router.options.auth?.wellKnown;
    if (wellKnown !== undefined) for (const path of new Set([wellKnown.pathAware, wellKnown.root])) route(['GET', 'OPTIONS'], path);
  }) as FastifyMcpPlugin;
  plugin.close = router.close;
  plugin.stats = router.stats;
  Object.defineProperty(plugin, 'options', { value: router.options, enumerable: true });
  return plugin;
}
