import { describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { concat, of } from 'rxjs';
import { allowAll, createServer, progressUpdate, Registry, type CallContext } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/memory.js';

function serverWith(register: (registry: Registry) => void, options: Parameters<typeof createServer>[0] = {}) {
  const registry = new Registry();
  register(registry);
  return createServer({ registry, authorizer: allowAll(), authorizerSource: 'configured', ...options });
}

async function clientFor(server: ReturnType<typeof createServer>, capabilities: Record<string, unknown> = {}) {
  const client = new Client({ name: 'test', version: '1' }, { capabilities });
  await client.connect(new MemoryClientTransport(server));
  return client;
}

describe('ctx.progress', () => {
  test('sends notifications/progress with the request token, before the result', async () => {
    const server = serverWith((r) =>
      r.registerTool({
        name: 'steps',
        handler: (_args, ctx) => {
          ctx.progress(1, 3, 'one');
          ctx.progress(2, 3);
          return 'done';
        },
      }),
    );
    const client = await clientFor(server);
    const seen: unknown[] = [];
    const result = await client.callTool({ name: 'steps' }, undefined, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'one' },
      { progress: 2, total: 3 },
    ]);
    expect(result).toEqual({ content: [{ type: 'text', text: 'done' }] });
    await client.close();
  });

  test('an Observable handler may emit progress updates; they are not the result', async () => {
    const server = serverWith((r) =>
      r.registerTool({ name: 'obs', handler: () => concat(of(progressUpdate(1, 2)), of(progressUpdate(2, 2, 'half')), of('result')) }),
    );
    const client = await clientFor(server);
    const seen: unknown[] = [];
    const result = await client.callTool({ name: 'obs' }, undefined, { onprogress: (p) => seen.push(p) });
    expect(seen).toEqual([{ progress: 1, total: 2 }, { progress: 2, total: 2, message: 'half' }]);
    expect(result.content).toEqual([{ type: 'text', text: 'result' }]);
    await client.close();
  });

  test('without a progress token nothing is sent', async () => {
    const server = serverWith((r) => r.registerTool({ name: 'p', handler: (_a, ctx) => (ctx.progress(1), 'ok') }));
    const messages: unknown[] = [];
    server.subscribe((m) => messages.push(m));
    const reply = await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'p' } });
    expect(reply).toMatchObject({ id: 1, result: { content: [{ type: 'text', text: 'ok' }] } });
    expect(messages).toEqual([]);
  });
});

describe('ctx.log', () => {
  test('goes to the calling connection, filtered by its level', async () => {
    const server = serverWith((r) =>
      r.registerTool({
        name: 'talk',
        handler: (_a, ctx) => {
          ctx.log('debug', 'quiet');
          ctx.log('warning', { loud: true }, 'talker');
          return 'ok';
        },
      }),
    );
    const client = await clientFor(server);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params);
    });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'talk' });
    expect(logs).toEqual([{ level: 'warning', logger: 'talker', data: { loud: true } }]);
    await client.close();
  });
});

describe('ctx.sample, ctx.listRoots, ctx.elicit', () => {
  const tools = (r: Registry) => {
    r.registerTool({
      name: 'sample',
      handler: async (_a, ctx) => {
        const result = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 });
        return JSON.stringify(result);
      },
    });
    r.registerTool({ name: 'roots', handler: async (_a, ctx) => JSON.stringify(await ctx.listRoots()) });
    r.registerTool({
      name: 'ask',
      handler: async (_a, ctx) =>
        JSON.stringify(
          await ctx.elicit({
            message: 'Your name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        ),
    });
    r.registerTool({
      name: 'bad_schema',
      handler: (_a, ctx) =>
        ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: { nested: { type: 'object' } } } }),
    });
    r.registerTool({
      name: 'url',
      handler: async (_a, ctx: CallContext) =>
        JSON.stringify(await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.invalid/x', elicitationId: 'e1' })),
    });
  };

  test('round trips with a capable client', async () => {
    const server = serverWith(tools);
    const client = await clientFor(server, { sampling: {}, roots: { listChanged: false }, elicitation: {} });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'sampled' },
      model: 'm',
    }));
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] }));
    client.setRequestHandler(ElicitRequestSchema, async (req) => ({
      action: 'accept',
      content: { name: `answer to ${req.params.message}` },
    }));
    const text = async (name: string) => ((await client.callTool({ name })).content as Array<{ text: string }>)[0]!.text;
    expect(JSON.parse(await text('sample'))).toEqual({ role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'm' });
    expect(JSON.parse(await text('roots'))).toEqual({ roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
    expect(JSON.parse(await text('ask'))).toEqual({ action: 'accept', content: { name: 'answer to Your name?' } });
    expect(server.stats().pendingClientRequests).toBe(0);
    await client.close();
  });

  test('without the capability the handler gets a ClientCapabilityError (a crash to the client)', async () => {
    const errors: unknown[] = [];
    const logger = { debug() {}, info() {}, warn() {}, error: (o: unknown) => errors.push(o) };
    const server = serverWith(tools, { logger });
    const client = await clientFor(server);
    for (const name of ['sample', 'roots', 'ask', 'url']) {
      expect(await client.callTool({ name })).toEqual({ content: [{ type: 'text', text: 'Error: callback_crashed' }], isError: true });
    }
    expect(errors.map((e) => (e as { err: Error }).err.name)).toEqual(Array(4).fill('ClientCapabilityError'));
    await client.close();
  });

  test('a form schema outside the spec restrictions is refused before sending', async () => {
    const server = serverWith(tools);
    const client = await clientFor(server, { elicitation: {} });
    let asked = false;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked = true;
      return { action: 'decline' };
    });
    const result = await client.callTool({ name: 'bad_schema' });
    expect(result.isError).toBe(true);
    expect(asked).toBe(false);
    await client.close();
  });

  test('url mode needs elicitation.url and sends mode url', async () => {
    const server = serverWith(tools);
    const client = await clientFor(server, { elicitation: { form: {}, url: {} } });
    const seen: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      seen.push(req.params);
      return { action: 'accept' };
    });
    const result = await client.callTool({ name: 'url' });
    expect(seen).toEqual([{ mode: 'url', message: 'Sign in', url: 'https://example.invalid/x', elicitationId: 'e1' }]);
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual({ action: 'accept' });
    await client.close();
  });

  test('a cancelled call cancels its pending client request and tells the client', async () => {
    const server = serverWith((r) =>
      r.registerTool({ name: 'wait', handler: async (_a, ctx) => JSON.stringify(await ctx.listRoots()) }),
    );
    const sent: Array<Record<string, unknown>> = [];
    server.subscribe((m) => sent.push(m as unknown as Record<string, unknown>), 'c');
    await server.handleMessage({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { capabilities: { roots: {} } } }, { connId: 'c' });
    const { reply, ref } = server.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } }, 'c');
    await new Promise((r) => setImmediate(r));
    const rootsRequest = sent.find((m) => m.method === 'roots/list');
    expect(rootsRequest).toBeDefined();
    server.cancel(ref);
    expect(await reply).toBeNull();
    expect(sent.at(-1)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: rootsRequest!.id, reason: 'the call that made this request ended' },
    });
    expect(server.stats().pendingClientRequests).toBe(0);
    // A late answer is ignored.
    expect(await server.handleMessage({ jsonrpc: '2.0', id: rootsRequest!.id, result: { roots: [] } }, { connId: 'c' })).toBeNull();
  });

  test('only the connection that was asked may answer', async () => {
    const server = serverWith((r) =>
      r.registerTool({ name: 'wait', handler: async (_a, ctx) => JSON.stringify(await ctx.listRoots()) }),
    );
    const sent: Array<Record<string, unknown>> = [];
    server.subscribe((m) => sent.push(m as unknown as Record<string, unknown>), 'owner');
    await server.handleMessage({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { capabilities: { roots: {} } } }, { connId: 'owner' });
    const { reply } = server.request({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } }, 'owner');
    await new Promise((r) => setImmediate(r));
    const id = sent.find((m) => m.method === 'roots/list')!.id;
    await server.handleMessage({ jsonrpc: '2.0', id, result: { roots: [{ uri: 'file:///forged' }] } }, { connId: 'intruder' });
    expect(server.stats().pendingClientRequests).toBe(1);
    await server.handleMessage({ jsonrpc: '2.0', id, result: { roots: [{ uri: 'file:///real' }] } }, { connId: 'owner' });
    expect(await reply).toMatchObject({ result: { content: [{ type: 'text', text: '{"roots":[{"uri":"file:///real"}]}' }] } });
  });
});
