/**
 * The official SDK client over the real WebSocket transport. The SDK's
 * WebSocketClientTransport uses the global WebSocket, which Node 20 does not
 * have, so the `ws` client stands in for it (same WHATWG surface).
 */
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { WebSocket } from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Registry, type McpServer } from '../../lib/index.js';
import { closeAll, guardedServer, listen } from './helpers.js';

const globals = globalThis as { WebSocket?: unknown };
const nativeWebSocket = globals.WebSocket;
beforeAll(() => {
  globals.WebSocket = WebSocket;
});
afterAll(() => {
  globals.WebSocket = nativeWebSocket;
});
afterEach(closeAll);

interface Fixture {
  server: McpServer;
  url: string;
  slowAborted: Promise<void>;
}

async function fixture(): Promise<Fixture> {
  const registry = new Registry();
  let markAborted!: () => void;
  const slowAborted = new Promise<void>((resolve) => (markAborted = resolve));
  registry.registerTool({
    name: 'echo',
    description: 'echoes text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    handler: (args) => String(args.text),
  });
  registry.registerTool({ name: 'guarded', handler: () => 'guarded ran' });
  registry.registerTool({
    name: 'slow',
    handler: (_args, ctx) =>
      new Promise(() => {
        ctx.signal.addEventListener('abort', () => markAborted());
      }),
  });
  const server = guardedServer({ registry, authorizer: (name) => (name === 'guarded' ? { ask: 'Run guarded?' } : 'allow') });
  const { url } = await listen(server);
  return { server, url, slowAborted };
}

async function connectClient(url: string, answer: 'accept' | 'decline'): Promise<{ client: Client; prompts: string[] }> {
  const client = new Client({ name: 'sdk-ws-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const prompts: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    prompts.push(String(request.params.message));
    return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
  });
  await client.connect(new WebSocketClientTransport(new URL(url)));
  return { client, prompts };
}

test('initialize, listTools and callTool', async () => {
  const { url, server } = await fixture();
  const { client } = await connectClient(url, 'accept');
  expect(client.getServerVersion()?.name).toBe('rxmcp');
  expect(client.getServerCapabilities()?.tools).toBeDefined();
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'guarded', 'slow']);
  expect(await client.callTool({ name: 'echo', arguments: { text: 'over ws' } })).toEqual({
    content: [{ type: 'text', text: 'over ws' }],
  });
  await client.close();
  await vi.waitFor(() => expect(server.stats().connections).toBe(0), { timeout: 2000, interval: 5 });
});

test('an elicitation the user approves runs the tool', async () => {
  const { url, server } = await fixture();
  const { client, prompts } = await connectClient(url, 'accept');
  expect(await client.callTool({ name: 'guarded' })).toEqual({ content: [{ type: 'text', text: 'guarded ran' }] });
  expect(prompts).toEqual(['Run guarded?']);
  expect(server.stats().parked).toBe(0);
  await client.close();
});

test('an elicitation the user declines is the deny', async () => {
  const { url } = await fixture();
  const { client, prompts } = await connectClient(url, 'decline');
  const result = await client.callTool({ name: 'guarded' });
  expect(prompts).toEqual(['Run guarded?']);
  expect(result.isError).toBe(true);
  const [item] = result.content as Array<{ type: string; text: string }>;
  expect(JSON.parse(item!.text)).toEqual({ error: 'authorization_required', tool: 'guarded', decision: 'ask', detail: 'declined' });
  await client.close();
});

test('a server notification reaches the client', async () => {
  const { url, server } = await fixture();
  const { client } = await connectClient(url, 'accept');
  const received = new Promise<unknown>((resolve) =>
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => resolve(notification.params)),
  );
  server.notify('notifications/message', { level: 'info', logger: 'test', data: 'hello over ws' });
  expect(await received).toEqual({ level: 'info', logger: 'test', data: 'hello over ws' });
  await client.close();
});

test('aborting a call cancels it on the server', async () => {
  const { url, server, slowAborted } = await fixture();
  const { client } = await connectClient(url, 'accept');
  const controller = new AbortController();
  const call = client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
  await vi.waitFor(() => expect(server.stats().inFlight).toBe(1), { timeout: 2000, interval: 5 });
  controller.abort('changed my mind');
  await expect(call).rejects.toThrow();
  await slowAborted;
  await vi.waitFor(() => expect(server.stats().inFlight).toBe(0), { timeout: 2000, interval: 5 });
  // The connection survives the cancellation.
  expect(await client.callTool({ name: 'echo', arguments: { text: 'still here' } })).toEqual({
    content: [{ type: 'text', text: 'still here' }],
  });
  await client.close();
});
