/**
 * Interop with the official TypeScript SDK v2 client over stdio: it spawns a
 * small server of the BUILT library (test/listen/fixtures/listen-server.mjs;
 * `npm test` builds first, run `npm run build` before running this file
 * alone), speaks 2026-07-28, and uses `client.listen()`: the honoured filter
 * from the acknowledgement, tools list changes and resource updates
 * dispatched to its notification handlers, `close()` (the SDK sends
 * notifications/cancelled: nothing more arrives and the server holds no
 * stream), and a server shutdown seen as a `graceful` end.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./fixtures/listen-server.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/lib/index.js', import.meta.url));

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);
});

const opened: Client[] = [];
afterEach(async () => {
  for (const client of opened.splice(0)) await client.close().catch(() => {});
});

async function connect(): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'ignore' });
  const client = new Client({ name: 'sdk-v2-listen', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  opened.push(client);
  await client.connect(transport);
  return client;
}

const text = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]?.text;

describe('the SDK v2 client listening over stdio', () => {
  test('acknowledged filter, dispatched changes, close() ends the stream on the server', async () => {
    const client = await connect();
    const seen: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', () => void seen.push('tools'));
    client.setNotificationHandler('notifications/resources/updated', (n) => void seen.push(`updated ${n.params.uri}`));

    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://a', 'mem://none'] });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true, resourceSubscriptions: ['mem://a'] });

    await client.callTool({ name: 'add_tool', arguments: {} });
    // The list change is coalesced on the server's clock, so it may follow the next call's reply: wait for it
    // before touching, or the two notifications' order would be the machine's load, not the server's.
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['tools']);
    await client.callTool({ name: 'touch', arguments: {} });
    await expect.poll(() => seen, { timeout: 5000 }).toEqual(['tools', 'updated mem://a']);

    await subscription.close();
    expect(await subscription.closed).toBe('local');
    await expect.poll(async () => text(await client.callTool({ name: 'listens', arguments: {} })), { timeout: 5000 }).toBe('0');
    await client.callTool({ name: 'add_tool', arguments: {} });
    await client.callTool({ name: 'touch', arguments: {} });
    // A second stream is the marker: by the time it hears a change, the closed one would have too.
    const marker = await client.listen({ resourceSubscriptions: ['mem://a'] });
    await client.callTool({ name: 'touch', arguments: {} });
    await expect.poll(() => seen.length, { timeout: 5000 }).toBe(3);
    expect(seen).toEqual(['tools', 'updated mem://a', 'updated mem://a']);
    await marker.close();
  });

  test('the server shutting down ends the stream gracefully', async () => {
    const client = await connect();
    const subscription = await client.listen({ toolsListChanged: true });
    await client.callTool({ name: 'shutdown', arguments: {} });
    expect(await subscription.closed).toBe('graceful');
  });
});
