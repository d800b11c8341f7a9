/**
 * Interop with the official TypeScript SDK v2 client
 * (@modelcontextprotocol/client, pinned in devDependencies) over Streamable
 * HTTP against the real handler on 127.0.0.1: pinned to 2026-07-28, and in
 * 'auto' mode (a server/discover probe, then modern). The SDK sends the
 * standard headers (and Mcp-Param-* for x-mcp-header tools) and validates
 * every result against the 2026-07-28 schema.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { MODERN } from '../era/modern-helpers.js';
import { REGION_TOOL, serveModern } from './helpers.js';

let served: Awaited<ReturnType<typeof serveModern>>;
beforeAll(async () => {
  served = await serveModern();
});
afterAll(() => served.close());

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close().catch(() => {});
});

async function connect(mode: 'auto' | { pin: string }): Promise<Client> {
  const client = new Client({ name: 'sdk-v2-http', version: '1.0.0' }, { capabilities: {}, versionNegotiation: { mode, probe: { timeoutMs: 10_000 } } });
  opened.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  return client;
}

describe('the SDK v2 client over Streamable HTTP', () => {
  for (const mode of [{ pin: MODERN }, 'auto'] as const) {
    test(`${typeof mode === 'string' ? mode : 'pinned'}: modern, statelessly: tools, x-mcp-header, resources, prompts, progress`, async () => {
      const client = await connect(mode);
      expect(client.getProtocolEra()).toBe('modern');
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);

      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain(REGION_TOOL);
      expect(await client.callTool({ name: 'echo', arguments: { text: 'over http' } })).toMatchObject({ content: [{ type: 'text', text: 'over http' }] });
      const regional = await client.callTool({ name: REGION_TOOL, arguments: { region: 'Zürich', count: 2 } });
      expect(regional.content).toEqual([{ type: 'text', text: JSON.stringify({ region: 'Zürich', count: 2 }) }]);

      const read = await client.readResource({ uri: 'demo://a' });
      expect(read.contents[0]).toMatchObject({ uri: 'demo://a', text: 'A' });
      const prompt = await client.getPrompt({ name: 'greet', arguments: { who: 'you' } });
      expect(prompt.messages[0]).toMatchObject({ role: 'user', content: { text: 'Hello you' } });

      const progress: number[] = [];
      const chatty = await client.callTool({ name: 'chatty', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
      expect(chatty.content).toEqual([{ type: 'text', text: 'said' }]);
      expect(progress).toEqual([1]);
      expect(served.http.handler.stats().sessions).toBe(0);
    });
  }

  test('a capability the request lacks is the SDK\'s -32021 error', async () => {
    const client = await connect({ pin: MODERN });
    await expect(client.callTool({ name: 'ask_user', arguments: {} })).rejects.toMatchObject({ code: -32021 });
  });
});
