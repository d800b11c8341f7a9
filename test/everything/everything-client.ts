/**
 * The client side of the fixture tests: an official SDK Client connected to
 * a fresh everything server over one transport, answering sampling and
 * elicitation the way the conformance suite's client does, and recording
 * what it was asked and the log lines it received. The step delay is 0
 * (timing has its own virtual-clock test), so nothing waits for real.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../lib/index.js';
import { createEverythingServer } from '../../examples/everything/server.js';
import type { TransportUnderTest } from './transports.js';

/** What the fixture's media must be, byte for byte (base64). */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';
export const WAV = 'UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==';

export interface Asked {
  readonly method: string;
  readonly params: unknown;
}

export interface EverythingSession {
  readonly server: McpServer;
  readonly client: Client;
  /** Server-to-client requests the client answered, in order. */
  readonly asked: Asked[];
  /** notifications/message params, in order. */
  readonly logs: unknown[];
  close(): Promise<void>;
}

/**
 * A fresh everything server (step delay 0) opened on `transport`, with
 * `client` (its handlers already set) connected to it; close() closes the
 * client, then the transport, then the server.
 */
export async function connectToFreshFixture(transport: TransportUnderTest, client: Client): Promise<{ server: McpServer; close(): Promise<void> }> {
  const server = createEverythingServer({ stepDelayMs: 0 });
  const opened = await transport.open(server);
  await client.connect(opened.client);
  return {
    server,
    close: async () => {
      await client.close();
      await opened.close();
      server.close();
    },
  };
}

export async function connectEverything(transport: TransportUnderTest): Promise<EverythingSession> {
  const asked: Asked[] = [];
  const logs: unknown[] = [];
  const client = new Client({ name: 'everything-test', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push({ method: request.method, params: request.params });
    return { role: 'assistant', content: { type: 'text', text: 'a sampled answer' }, model: 'test-model', stopReason: 'endTurn' };
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push({ method: request.method, params: request.params });
    const properties = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    if (properties.includes('username')) return { action: 'accept', content: { username: 'testuser', email: 'test@example.com' } };
    if (properties.includes('verified')) {
      return { action: 'accept', content: { name: 'Jane Smith', age: 25, score: 88, status: 'inactive', verified: false } };
    }
    return { action: 'decline' };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  const { server, close } = await connectToFreshFixture(transport, client);
  return { server, client, asked, logs, close };
}
