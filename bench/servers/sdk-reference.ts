/**
 * The reference: the same two tools written the way an official-SDK user
 * writes them (`@modelcontextprotocol/sdk` McpServer with zod shapes).
 *
 *   node dist/bench/servers/sdk-reference.js --transport stdio|http [--port N] [--json]
 *
 * - stdio: StdioServerTransport on this process's stdin/stdout.
 * - http: StreamableHTTPServerTransport on node:http at /mcp, stateful: an
 *   initialize without a session mints a session with its own McpServer (an
 *   SDK Protocol serves one transport), later requests are routed by
 *   Mcp-Session-Id. Replies are SSE streams (the SDK default) unless `--json`
 *   asks for enableJsonResponse.
 */
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { announceReady, exitOnSignals, parseServerArgs } from './argv.js';

function buildServer(): McpServer {
  const server = new McpServer({ name: 'sdk-reference', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Returns the text it is given.', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  server.registerTool(
    'sleep',
    { description: 'Waits ms milliseconds, then returns.', inputSchema: { ms: z.number().int().nonnegative() } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    },
  );
  return server;
}

async function serveStdio(): Promise<void> {
  const server = buildServer();
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => process.exit(0));
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

function replyError(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

async function serveHttp(port: number, enableJsonResponse: boolean): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (new URL(request.url ?? '/', 'http://x').pathname !== '/mcp') return replyError(response, 404, 'not found');
    const sessionId = request.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (request.method !== 'POST') {
      if (existing === undefined) return replyError(response, 400, 'no such session');
      return existing.handleRequest(request, response);
    }
    const body: unknown = JSON.parse(await readBody(request));
    if (existing !== undefined) return existing.handleRequest(request, response, body);
    if (sessionId !== undefined || !isInitializeRequest(body)) return replyError(response, 400, 'no such session');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse,
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await buildServer().connect(transport);
    await transport.handleRequest(request, response, body);
  };

  const http = createHttpServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) replyError(response, 500, String(error));
    });
  });
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  announceReady(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
}

exitOnSignals();
const args = parseServerArgs(process.argv.slice(2), ['stdio', 'http']);
if (args.transport === 'stdio') await serveStdio();
else await serveHttp(args.port, args.flags.has('--json'));
