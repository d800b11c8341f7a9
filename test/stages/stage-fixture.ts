/** What the stage specs share: a server's core on a virtual clock, an origin, and the messages they feed. */
import type { SchedulerLike } from 'rxjs';
import { createServer, Registry, type ServerOptions } from '../../lib/index.js';
import { eraDecisionFor } from '../../streams/stages/decide-era.js';
import type { McpServer } from '../../streams/mcp-server.js';
import type { Origin, ServerCore } from '../../streams/state/server-core.js';
import { Incoming } from '../../streams/stages/incoming.js';

/** The core a server hands its stages (private to McpServer: read here for the stage specs only). */
export function coreOf(server: McpServer): ServerCore {
  return (server as unknown as { core: ServerCore }).core;
}

export function stageServer(scheduler: SchedulerLike, options: ServerOptions = {}): { server: McpServer; core: ServerCore } {
  const registry = new Registry().registerTool({ name: 'echo', handler: ({ text }) => String(text) });
  const server = createServer({ registry, scheduler, ...options });
  return { server, core: coreOf(server) };
}

export function stdioOrigin(connId = 'c1'): Origin {
  return { connId, transport: 'stdio', peer: connId, mode: 'reply', eraDecision: eraDecisionFor('per-connection', 'stdio') };
}

export function incoming(message: unknown, origin: Origin = stdioOrigin()): Incoming {
  return new Incoming(message, origin);
}

export const call = (id: number, text = 'hi') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });
export const init = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stages', version: '1' } },
});
export const echoed = (id: number, text = 'hi') => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
