/**
 * The HTTP transport mounted in each framework the way its users would,
 * on 127.0.0.1 and an ephemeral port, each with an app route of its own
 * (`GET /hello` answers `hello`) beside it: the shapes the adapter tests
 * and the SDK scenario run against.
 */
import { createServer as createNodeServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach } from 'vitest';
import { createServer, Registry, type McpServer } from '../../lib/index.js';
import { createExpressHandler } from '../../transports/frameworks/express.js';
import { createFastifyPlugin } from '../../transports/frameworks/fastify.js';
import { createHonoHandler } from '../../transports/frameworks/hono.js';
import { createFetchHandler, type HttpHandlerOptions } from '../../transports/index.js';
import { describeSdkScenario, type Mount, type Mounted } from '../http/sdk-scenario.js';
import { nodeToFetch } from './fetch-bridge.js';

export interface MountedApp extends Mounted {
  readonly base: string;
}

/** The official client's scenario over Streamable HTTP and, unless told otherwise, over the legacy SSE transport, on one mount. */
export function describeSdkScenarios(name: string, mount: Mount, transports: readonly ('http' | 'sse')[] = ['http', 'sse']): void {
  if (transports.includes('http')) {
    describeSdkScenario(`${name}: Streamable HTTP`, 'http', ({ http }) => new StreamableHTTPClientTransport(new URL(http.url)), mount);
  }
  if (transports.includes('sse')) {
    describeSdkScenario(`${name}: legacy SSE`, 'sse', ({ http }) => new SSEClientTransport(new URL(http.sseUrl!)), mount);
  }
}

/** A server with nothing registered, for the tests that only look at the transport. */
export const bareServer = (): McpServer => createServer({ registry: new Registry() });

/** Keeps the app each test mounts and closes it after the test. */
export function closedAfterEach<T extends { close(): Promise<void> }>(): (app: T) => T {
  let current: T | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return (app) => (current = app);
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeNode(server: Server, closeHandler: () => void): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      closeHandler();
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/** Express 5 with `express.json()` before the handler, mounted with `app.use(mountPath, handler)`, or at the root when mountPath is '/'. */
export async function mountExpress(server: McpServer, options: HttpHandlerOptions, mountPath: '/mcp' | '/' = '/mcp'): Promise<MountedApp> {
  const app = express();
  app.use(express.json({ limit: '4mb' }));
  app.get('/hello', (_req, res) => {
    res.type('text/plain').send('hello');
  });
  const handler = createExpressHandler(server, options);
  if (mountPath === '/') app.use(handler);
  else app.use(mountPath, handler);
  app.post('/api/echo', (req, res) => {
    res.json({ echoed: req.body as unknown });
  });
  const http = createNodeServer(app);
  const base = await listen(http);
  const prefix = mountPath === '/' ? '' : mountPath;
  return {
    base,
    url: mountPath === '/' ? `${base}${handler.options.endpoint}` : `${base}${mountPath}`,
    sseUrl: `${base}${prefix}/sse`,
    stats: handler.stats,
    close: closeNode(http, handler.close),
  };
}

/** Fastify 5 with its own JSON parser, the plugin registered under `prefix` (none by default). */
export async function mountFastify(server: McpServer, options: HttpHandlerOptions, prefix = ''): Promise<MountedApp & { parsedBodies: string[] }> {
  const app = Fastify();
  const parsedBodies: string[] = [];
  // What Fastify's parser made of each POST body before the handler ran.
  app.addHook('preHandler', async (request) => {
    if (request.method === 'POST') parsedBodies.push(typeof request.body);
  });
  app.get('/hello', async () => 'hello');
  const plugin = createFastifyPlugin(server, options);
  await app.register(plugin, prefix === '' ? {} : { prefix });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    base,
    parsedBodies,
    url: `${base}${prefix}${plugin.options.endpoint}`,
    sseUrl: `${base}${prefix}/sse`,
    stats: plugin.stats,
    close: () => app.close(),
  };
}

/** Hono 4 on @hono/node-server, a middleware reading every POST body (`c.req.json()`) before the handler. */
export async function mountHono(server: McpServer, options: HttpHandlerOptions): Promise<MountedApp & { bodiesReadBefore: () => number }> {
  const app = new Hono();
  let readBefore = 0;
  app.use(async (c, next) => {
    if (c.req.method === 'POST') {
      await c.req.json().catch(() => undefined);
      readBefore += 1;
    }
    await next();
  });
  const handler = createHonoHandler(server, options);
  app.use(handler);
  app.get('/hello', (c) => c.text('hello'));
  return { ...(await serveFetch(app.fetch, handler)), bodiesReadBefore: () => readBefore };
}

/** The fetch handler on node:http through the test bridge, or on @hono/node-server. */
export async function mountFetch(server: McpServer, options: HttpHandlerOptions, via: 'bridge' | 'hono-node-server'): Promise<MountedApp> {
  const handler = createFetchHandler(server, options);
  if (via === 'hono-node-server') return serveFetch(handler, handler);
  const http = createNodeServer(nodeToFetch(handler));
  const base = await listen(http);
  return { base, url: `${base}/mcp`, sseUrl: `${base}/sse`, stats: handler.stats, close: closeNode(http, handler.close) };
}

async function serveFetch(
  fetch: (request: Request) => Response | Promise<Response>,
  handler: { stats: Mounted['stats']; close(): void },
): Promise<MountedApp> {
  let http!: Server;
  const address = await new Promise<AddressInfo>((resolve) => {
    http = serveHono({ fetch, port: 0, hostname: '127.0.0.1' }, resolve) as Server;
  });
  const base = `http://127.0.0.1:${address.port}`;
  return { base, url: `${base}/mcp`, sseUrl: `${base}/sse`, stats: handler.stats, close: closeNode(http, handler.close) };
}
