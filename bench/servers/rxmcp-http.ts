/**
 * rxmcp's Streamable HTTP transport for the bench server: serveHttp on
 * 127.0.0.1 with its defaults (endpoint /mcp); resolves the endpoint URL
 * once it listens.
 */
import type { McpServer } from '../../lib/index.js';
import { serveHttp } from '../../transports/http/serve.js';

export async function serveRxmcpHttp(server: McpServer, port: number): Promise<string> {
  const handle = await serveHttp(server, { port, host: '127.0.0.1' });
  return handle.url;
}
