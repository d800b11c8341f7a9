/**
 * Loads the user's server module: its default export, or else its
 * createServer export, is an McpServer or a function (sync or async)
 * returning one, or a Promise of either. Recognized by shape rather than instanceof, since the
 * module may import its own copy of rxmcp. The server's serverInfo defaults
 * become the name and version of the module's nearest package.json.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServer } from '../../streams/mcp-server.js';
import { nearestPackageInfo } from './package-info.js';

function isMcpServer(value: unknown): value is McpServer {
  const candidate = value as Partial<McpServer> | null;
  return (
    typeof value === 'object' &&
    candidate !== null &&
    typeof candidate.connect === 'function' &&
    typeof candidate.handleMessage === 'function' &&
    typeof candidate.authorizationConfigured === 'function'
  );
}

/** A server, a function returning one, or a Promise of either (`export default makeServer()` of an async maker). */
async function serverFrom(exported: unknown): Promise<McpServer | undefined> {
  const settled = await exported;
  const value = typeof settled === 'function' ? await (settled as () => unknown)() : settled;
  return isMcpServer(value) ? value : undefined;
}

export async function loadServer(specifier: string, cwd: string = process.cwd()): Promise<McpServer> {
  const path = resolve(cwd, specifier);
  const server = await exportedServer(specifier, pathToFileURL(path).href);
  // An older rxmcp copy may not have it: then serverInfo keeps its defaults.
  (server as Partial<McpServer>).setServerInfoDefaults?.(nearestPackageInfo(path));
  return server;
}

async function exportedServer(specifier: string, url: string): Promise<McpServer> {
  const module = (await import(url)) as Record<string, unknown>;
  for (const name of ['default', 'createServer']) {
    if (!(name in module)) continue;
    const server = await serverFrom(module[name]);
    if (server !== undefined) return server;
    throw new Error(`${specifier}: the ${name} export is not an McpServer nor a function returning one`);
  }
  throw new Error(`${specifier}: export an McpServer (or a function returning one) as default or as createServer`);
}
