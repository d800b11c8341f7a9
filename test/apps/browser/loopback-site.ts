/**
 * One loopback origin for the browser test: the host page and its script,
 * and rxmcp's Streamable HTTP endpoint at /mcp, so the page's MCP client
 * talks to rxmcp without CORS and the browser never needs another address.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '../../../lib/index.js';
import { createHttpHandler } from '../../../transports/index.js';

export interface LoopbackSite {
  /** The host page's URL on 127.0.0.1. */
  readonly url: string;
  close(): Promise<void>;
}

/** Serves `html` at `/`, `script` at `/host.js` and `server` at `/mcp`, on 127.0.0.1 and a free port. */
export async function serveLoopbackSite(server: McpServer, html: string, script: string): Promise<LoopbackSite> {
  const mcp = createHttpHandler(server);
  const http: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    const page = path === '/' ? { type: 'text/html; charset=utf-8', body: html } : path === '/host.js' ? { type: 'text/javascript; charset=utf-8', body: script } : null;
    if (page === null) return mcp(req, res);
    res.writeHead(200, { 'content-type': page.type, 'cache-control': 'no-store' });
    res.end(page.body);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      mcp.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
