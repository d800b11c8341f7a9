/**
 * One tools/call as a closed-loop step: resolves on a good result, throws on
 * a JSON-RPC error or an isError result, so failures are counted and named
 * instead of being timed as if they were answers.
 */
import type { RpcClient } from './rpc-client.js';

export async function callTool(client: RpcClient, name: string, args: Record<string, unknown>): Promise<void> {
  const reply = await client.request('tools/call', { name, arguments: args });
  if (reply.error !== undefined) throw new Error(`${name}: ${reply.error.code} ${reply.error.message}`);
  const result = reply.result as { isError?: boolean; content?: { text?: string }[] } | undefined;
  if (result?.isError === true) throw new Error(`${name}: isError ${result.content?.[0]?.text ?? ''}`);
}

/** The echo payload every scenario sends, the same bytes to every server. */
export const ECHO_ARGS = { text: 'hello, benchmark' } as const;
