/**
 * The black-box scenario both HTTP transports must pass with the official
 * SDK client: initialize, list and call tools, an elicitation approved and
 * one declined, a resource notification after subscribe, a broadcast, and a
 * cancel that aborts the server handler's signal. The transport is mounted
 * by `mount` (default serveHttp; the framework adapters bring their own).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ElicitRequestSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createServer, Registry, type McpServer } from '../../lib/index.js';
import { serveHttp, type HttpHandlerOptions, type HttpHandlerStats } from '../../transports/index.js';
import { eventually } from './helpers.js';

/** The transport served somewhere on 127.0.0.1. */
export interface Mounted {
  /** The streamable HTTP endpoint. */
  readonly url: string;
  /** The legacy SSE stream, or null where it is not served. */
  readonly sseUrl: string | null;
  stats(): HttpHandlerStats;
  close(): Promise<void>;
}

export type Mount = (server: McpServer, options: HttpHandlerOptions) => Promise<Mounted>;

export interface ScenarioContext {
  readonly http: Mounted;
}

async function mountServeHttp(server: McpServer, options: HttpHandlerOptions): Promise<Mounted> {
  const http = await serveHttp(server, { port: 0, host: '127.0.0.1', ...options });
  return { url: http.url, sseUrl: http.sseUrl, stats: http.handler.stats, close: () => http.close() };
}

export function describeSdkScenario(
  name: string,
  transportKind: 'http' | 'sse',
  makeTransport: (ctx: ScenarioContext) => Transport,
  mount: Mount = mountServeHttp,
): void {
  describe(name, () => {
    let server: McpServer;
    let http: Mounted;
    let client: Client;
    let answer: 'approve' | 'decline';
    let elicited: string[];
    let seenTransports: string[];
    let slowSignal: AbortSignal | undefined;
    let slowStarted: Promise<void>;
    let markSlowStarted: () => void;

    beforeEach(async () => {
      answer = 'approve';
      elicited = [];
      seenTransports = [];
      slowSignal = undefined;
      slowStarted = new Promise((resolve) => (markSlowStarted = resolve));
      const registry = new Registry();
      registry.registerTool({
        name: 'echo',
        description: 'echoes its text',
        inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
        handler: (args) => String(args.text),
      });
      registry.registerTool({ name: 'deploy', description: 'needs approval', handler: () => 'deployed' });
      registry.registerTool({
        name: 'slow',
        handler: (_args, ctx) =>
          new Promise((resolve) => {
            slowSignal = ctx.signal;
            markSlowStarted();
            ctx.signal.addEventListener('abort', () => resolve('aborted'));
          }),
      });
      registry.registerResource({ uri: 'mem://note', name: 'note', read: () => 'hello' });
      server = createServer({
        registry,
        authorizer: (tool, _args, ctx) => {
          seenTransports.push(ctx.transport);
          return tool === 'deploy' ? { ask: 'Deploy now?' } : 'allow';
        },
        authorizerSource: 'configured',
        readAuthorizer: () => 'allow',
      });
      http = await mount(server, { requireAuthorization: true });
      client = new Client({ name: 'sdk-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicited.push(request.params.message);
        return answer === 'approve' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      });
      await client.connect(makeTransport({ http }));
    });

    afterEach(async () => {
      await client.close();
      await http.close();
      server.close();
    });

    test('initialize, listTools, callTool', async () => {
      expect(client.getServerVersion()).toMatchObject({ name: 'rxmcp' });
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'deploy', 'slow']);
      expect(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).toEqual({ content: [{ type: 'text', text: 'hi' }] });
      expect(seenTransports).toContain(transportKind);
      expect(http.stats().sessions).toBe(1);
    });

    test('an elicitation approved runs the tool; one declined is the deny', async () => {
      expect(await client.callTool({ name: 'deploy' })).toEqual({ content: [{ type: 'text', text: 'deployed' }] });
      answer = 'decline';
      const denied = await client.callTool({ name: 'deploy' });
      expect(denied.isError).toBe(true);
      const text = (denied.content as { text: string }[])[0]!.text;
      expect(JSON.parse(text)).toEqual({ error: 'authorization_required', tool: 'deploy', decision: 'ask', detail: 'declined' });
      expect(elicited).toEqual(['Deploy now?', 'Deploy now?']);
      expect(server.stats().parked).toBe(0);
    });

    test('server notifications arrive: resources/updated after subscribe, and a broadcast', async () => {
      const updated: string[] = [];
      let listChanged = 0;
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri);
      });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged += 1;
      });
      await client.subscribeResource({ uri: 'mem://note' });
      server.resourceUpdated('mem://other');
      server.resourceUpdated('mem://note');
      server.notify('notifications/tools/list_changed');
      await eventually(() => updated.length === 1 && listChanged === 1);
      expect(updated).toEqual(['mem://note']);
    });

    test('cancelling callTool aborts the server handler\'s signal', async () => {
      const controller = new AbortController();
      const call = client.callTool({ name: 'slow' }, undefined, { signal: controller.signal });
      await slowStarted;
      expect(slowSignal?.aborted).toBe(false);
      controller.abort('user gave up');
      await expect(call).rejects.toThrow();
      await eventually(() => slowSignal?.aborted === true);
      expect(server.stats().inFlight).toBe(0);
      // The session still works after the cancel.
      expect(await client.callTool({ name: 'echo', arguments: { text: 'after' } })).toEqual({ content: [{ type: 'text', text: 'after' }] });
    });
  });
}
