/**
 * A client for a server on a wire, initialized when the server speaks MCP
 * on a legacy wire. A modern wire has no initialize: HTTP is stateless, and
 * stdio opens with a `server/discover` probe (which must be answered with a
 * result). stdio needs the spawned child's pipes; http and ws need its URL.
 * HTTP clients share the caller's keep-alive Agent.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Agent } from 'node:http';
import { initialize } from './handshake.js';
import { HttpClient } from './http-client.js';
import type { RpcClient } from './rpc-client.js';
import { StdioClient } from './stdio-client.js';
import type { Wire } from './targets.js';
import { connectWs } from './ws-client.js';

export interface Endpoint {
  readonly wire: Wire;
  /** False for the limit server: no initialize. */
  readonly mcp: boolean;
}

export interface Reachable {
  readonly child?: ChildProcessWithoutNullStreams | undefined;
  readonly url?: string | undefined;
}

const ENVELOPE_OF = { stdio: 'none', 'stdio-modern': 'modern', 'stdio-sized': 'sized' } as const;

async function discover(client: RpcClient): Promise<RpcClient> {
  const reply = await client.request('server/discover', {});
  if (reply.error !== undefined) throw new Error(`server/discover failed: ${reply.error.code} ${reply.error.message}`);
  return client;
}

export async function openClient(endpoint: Endpoint, server: Reachable, agent?: Agent): Promise<RpcClient> {
  let client: RpcClient;
  if (endpoint.wire === 'stdio' || endpoint.wire === 'stdio-modern' || endpoint.wire === 'stdio-sized') {
    if (server.child === undefined) throw new Error('a stdio client needs a spawned server');
    client = new StdioClient(server.child.stdin, server.child.stdout, ENVELOPE_OF[endpoint.wire]);
    if (endpoint.wire === 'stdio-modern') return discover(client);
  } else if (server.url === undefined) {
    throw new Error(`a ${endpoint.wire} client needs a url`);
  } else if (endpoint.wire === 'http' || endpoint.wire === 'http-modern') {
    if (agent === undefined) throw new Error('an HTTP client needs an Agent');
    client = new HttpClient(server.url, agent, endpoint.wire === 'http-modern');
    if (endpoint.wire === 'http-modern') return client; // stateless: no initialize
  } else {
    client = await connectWs(server.url);
  }
  if (endpoint.mcp) await initialize(client);
  return client;
}
