import { test, expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServer, Registry } from '../lib/index.js';
import { MemoryClientTransport } from '../transports/index.js';

test('sdk over memory', async () => {
  const registry = new Registry();
  registry.registerTool({ name: 'echo', description: 'e', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, handler: (a) => String(a.text) });
  registry.registerTool({ name: 'approve', handler: () => 'ran' });
  const server = createServer({ registry, authorizer: (n) => n === 'approve' ? { ask: 'ok?' } : 'allow', authorizerSource: 'configured' });
  const client = new Client({ name: 't', version: '1' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { approve: true } }));
  await client.connect(new MemoryClientTransport(server));
  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'approve']);
  expect(await client.callTool({ name: 'echo', arguments: { text: 'x' } })).toEqual({ content: [{ type: 'text', text: 'x' }] });
  expect(await client.callTool({ name: 'approve' })).toEqual({ content: [{ type: 'text', text: 'ran' }] });
  await client.close();
  expect(server.stats()).toMatchObject({ connections: 0, parked: 0, inFlight: 0 });
});
