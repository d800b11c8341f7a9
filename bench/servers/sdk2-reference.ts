/**
 * The modern-era reference: the same two tools on the official SDK v2
 * (`@modelcontextprotocol/server` 2.4.0), served the way its documentation
 * serves 2026-07-28 traffic.
 *
 *   node dist/bench/servers/sdk2-reference.js --transport stdio|http [--port N]
 *
 * - stdio: `serveStdio(factory)`; the opening exchange (a `server/discover`
 *   probe, then an enveloped request) picks the era and pins one instance.
 * - http: `createMcpHandler(factory)` (a fresh instance per request, as the
 *   SDK designs it) on node:http at /mcp through @hono/node-server's request
 *   listener, which is what the SDK's own node adapter
 *   (`@modelcontextprotocol/node`) wraps.
 *
 * The legacy scenarios keep the SDK v1 server (sdk-reference.ts).
 */
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
import { announceReady, exitOnSignals, parseServerArgs } from './argv.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk2-reference', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text it is given.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'sleep',
    { description: 'Waits ms milliseconds, then returns.', inputSchema: z.object({ ms: z.number().int().nonnegative() }) },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    },
  );
  return server;
}

async function serveHttp(port: number): Promise<void> {
  const handler = createMcpHandler(() => buildServer());
  const notFound = (): Response => new Response('not found', { status: 404 });
  const listener = getRequestListener((request) => (new URL(request.url).pathname === '/mcp' ? handler.fetch(request) : notFound()));
  const http = createHttpServer((request, response) => void listener(request, response));
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  announceReady(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

exitOnSignals();
const args = parseServerArgs(process.argv.slice(2), ['stdio', 'http']);
if (args.transport === 'stdio') {
  serveStdio(() => buildServer());
  process.stdin.once('end', () => process.exit(0));
} else {
  await serveHttp(args.port);
}
