/**
 * The MCP opening every scenario but the limit server's does: initialize,
 * then notifications/initialized. A server that answers initialize with an
 * error fails the run (a benchmark of error replies measures nothing).
 */
import type { RpcClient } from './rpc-client.js';

export const BENCH_PROTOCOL_VERSION = '2025-06-18';

export async function initialize(client: RpcClient): Promise<void> {
  const reply = await client.request('initialize', {
    protocolVersion: BENCH_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'rxmcp-bench-driver', version: '1.0.0' },
  });
  if (reply.error !== undefined) throw new Error(`initialize failed: ${reply.error.message}`);
  const version = (reply.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  client.negotiated?.(typeof version === 'string' ? version : BENCH_PROTOCOL_VERSION);
  await client.notify('notifications/initialized');
}
