/**
 * Two servers of one deployment, each with its own redisCluster handle (its
 * own link: a process of its own as far as Redis can tell), in one test
 * process. What one of them notifies reaches the other's connections once:
 * a legacy connection's resources/updated for a URI it subscribed and its
 * list_changed, a modern subscriptions/listen stream's list_changed; a local
 * notify still reaches the local connection once (no echo through Redis);
 * notifications other than the four bus events stay on their process.
 *
 * "Once" is checked behind a fence (see redis-event-bus.test.ts): a marker
 * notified after the event under test; when it has arrived, the event and any
 * copy of it would have arrived before it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { redisCluster, type RedisClusterHandle } from '../../cluster/redis/cluster.js';
import { createServer, Registry, type McpServer } from '../../lib/index.js';
import type { OutboundMessage } from '../../lib/protocol/jsonrpc.js';
import { serveHttp } from '../../transports/index.js';
import { connectInMemory, type MemoryConnection } from '../../transports/memory.js';
import { legacyInitialize } from '../era/modern-helpers.js';
import { listen } from '../listen/harness.js';
import { startRedis, type RedisServer } from '../helpers/redis-server.js';
import { recordingLogger, uniqueServerId, waitFor, type RecordingLogger } from './redis-bus-helpers.js';

const SUB = 'io.modelcontextprotocol/subscriptionId';

interface Node {
  readonly server: McpServer;
  readonly cluster: RedisClusterHandle;
  readonly logger: RecordingLogger;
}

interface Client {
  readonly connection: MemoryConnection;
  readonly seen: OutboundMessage[];
  /** Notifications with `method` (and, when given, this uri). */
  count(method: string, uri?: string): number;
  reply(id: unknown): OutboundMessage | undefined;
}

function registry(): Registry {
  return new Registry()
    .registerTool({ name: 'echo', handler: ({ text }) => String(text) })
    .registerResourceTemplate({ uriTemplate: 'mem://{name}', name: 'memo', read: (uri) => `content of ${uri}` });
}

function client(server: McpServer): Client {
  const connection = connectInMemory(server);
  const seen: OutboundMessage[] = [];
  connection.messages$.subscribe((message) => seen.push(message));
  const params = (m: OutboundMessage) => (m as { params?: Record<string, unknown> }).params;
  return {
    connection,
    seen,
    count: (method, uri) => seen.filter((m) => 'method' in m && m.method === method && (uri === undefined || params(m)?.uri === uri)).length,
    reply: (id) => seen.find((m) => !('method' in m) && 'id' in m && m.id === id),
  };
}

const rpc = (id: unknown, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/** A legacy client on `server`, initialized and subscribed to `uris`. */
async function legacyClient(server: McpServer, uris: readonly string[]): Promise<Client> {
  const c = client(server);
  c.connection.send(legacyInitialize('init'));
  c.connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  uris.forEach((uri, i) => c.connection.send(rpc(`sub-${i}`, 'resources/subscribe', { uri })));
  await waitFor(() => uris.every((_uri, i) => c.reply(`sub-${i}`) !== undefined), 'the subscriptions');
  uris.forEach((_uri, i) => expect(c.reply(`sub-${i}`)).toEqual({ jsonrpc: '2.0', id: `sub-${i}`, result: {} }));
  return c;
}

describe('notifications across two servers of one deployment on Redis', () => {
  let redis: RedisServer;
  const nodes: Node[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis();
  }, 30_000);

  afterAll(async () => {
    for (const c of clients) c.connection.close();
    for (const node of nodes) {
      node.server.close();
      await node.cluster.close().catch(() => undefined);
    }
    await redis?.stop();
  });

  async function deployment(): Promise<[Node, Node]> {
    const serverId = uniqueServerId('notify');
    const pair: Node[] = [];
    for (const nodeId of ['A', 'B']) {
      const logger = recordingLogger();
      const cluster = await redisCluster({ redis: redis.url, serverId, nodeId, logger });
      const server = createServer({ registry: registry(), ...cluster.serverOptions, logger });
      const node = { server, cluster, logger };
      nodes.push(node);
      pair.push(node);
    }
    return pair as [Node, Node];
  }

  test('a legacy client on A subscribed to a URI gets resources/updated once when B notifies it, and nothing for other URIs', async () => {
    const [a, b] = await deployment();
    const subscribed = await legacyClient(a.server, ['mem://doc', 'mem://fence']);
    const other = await legacyClient(a.server, ['mem://fence']);
    clients.push(subscribed, other);
    b.server.notify('notifications/resources/updated', { uri: 'mem://doc' });
    b.server.notify('notifications/resources/updated', { uri: 'mem://unsubscribed' });
    b.server.notify('notifications/resources/updated', { uri: 'mem://fence' });
    await waitFor(() => subscribed.count('notifications/resources/updated', 'mem://fence') === 1 && other.count('notifications/resources/updated', 'mem://fence') === 1, 'the fence on A');
    // The very bytes a local notify sends.
    expect(subscribed.seen.filter((m) => 'method' in m && m.method === 'notifications/resources/updated')).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://doc' } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://fence' } },
    ]);
    expect(other.count('notifications/resources/updated', 'mem://doc')).toBe(0);
    expect(a.logger.lines.filter(([level]) => level !== 'debug')).toEqual([]);
  });

  test('a local notify reaches the local legacy client once (its echo from Redis is skipped)', async () => {
    const [a, b] = await deployment();
    const local = await legacyClient(a.server, ['mem://doc', 'mem://fence']);
    clients.push(local);
    const heardOnB: unknown[] = [];
    b.cluster.serverOptions.eventBus!.subscribe((event) => heardOnB.push(event));
    a.server.notify('notifications/resources/updated', { uri: 'mem://doc' });
    expect(local.count('notifications/resources/updated', 'mem://doc')).toBe(1);
    // Once B has heard it, Redis has also sent A its echo ahead of anything B publishes next.
    await waitFor(() => heardOnB.length === 1, 'the event on B');
    b.server.notify('notifications/resources/updated', { uri: 'mem://fence' });
    await waitFor(() => local.count('notifications/resources/updated', 'mem://fence') === 1, 'the fence on A');
    expect(local.count('notifications/resources/updated', 'mem://doc')).toBe(1);
  });

  test("B's registry change reaches a modern listen on A and a legacy client on A, once each; other notifications stay on B", async () => {
    const [a, b] = await deployment();
    const legacy = await legacyClient(a.server, ['mem://fence']);
    const modern = client(a.server);
    const onB = await legacyClient(b.server, []);
    clients.push(legacy, modern, onB);
    modern.connection.send(listen('L', { toolsListChanged: true, resourceSubscriptions: ['mem://fence'] }));
    await waitFor(() => modern.count('notifications/subscriptions/acknowledged') === 1, 'the listen acknowledged');

    b.server.registry.registerTool({ name: 'added_on_b', handler: () => 'b' });
    await waitFor(() => modern.count('notifications/tools/list_changed') === 1 && legacy.count('notifications/tools/list_changed') === 1, 'list_changed on A');
    b.server.notify('notifications/message', { level: 'error', data: 'stays on B' });
    b.server.notify('notifications/custom', { x: 1 });
    b.server.notify('notifications/resources/updated', { uri: 'mem://fence' });
    await waitFor(() => modern.count('notifications/resources/updated') === 1 && legacy.count('notifications/resources/updated') === 1, 'the fence on A');

    const listenMessages = modern.seen.filter((m) => 'method' in m && m.method !== 'notifications/subscriptions/acknowledged');
    expect(listenMessages).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'L' } } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: { [SUB]: 'L' }, uri: 'mem://fence' } },
    ]);
    expect(legacy.seen.filter((m) => 'method' in m)).toStrictEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://fence' } },
    ]);
    // B's own legacy client heard its process's notifications, the local ones included.
    expect(onB.count('notifications/tools/list_changed')).toBe(1);
    expect(onB.count('notifications/custom')).toBe(1);
  });

  test('after server.close() the server hears no more remote events', async () => {
    const [a, b] = await deployment();
    const legacy = await legacyClient(a.server, ['mem://doc']);
    clients.push(legacy);
    const watcher = await legacyClient(b.server, []);
    clients.push(watcher);
    const heardOnA: unknown[] = [];
    a.cluster.serverOptions.eventBus!.subscribe((event) => heardOnA.push(event));
    a.server.close();
    b.server.notify('notifications/resources/updated', { uri: 'mem://doc' });
    await waitFor(() => heardOnA.length === 1, 'the event at the bus of A');
    expect(legacy.count('notifications/resources/updated')).toBe(0);
  });

  test('the official SDK client (legacy, streamable HTTP) on A hears resources/updated and list_changed made on B, once each', async () => {
    const [a, b] = await deployment();
    const http = await serveHttp(a.server, { port: 0, idleSocketTimeoutMs: 3_600_000 });
    const sdk = new SdkClient({ name: 'legacy-sdk', version: '1.0.0' });
    try {
      const updated: string[] = [];
      let listChanged = 0;
      sdk.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
      sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void (listChanged += 1));
      await sdk.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      await sdk.subscribeResource({ uri: 'mem://doc' });
      await sdk.subscribeResource({ uri: 'mem://fence' });
      await sdk.subscribeResource({ uri: 'mem://ready' });
      // The session's GET stream opens on its own after initialize: a local marker, bounded in tries, shows it is there.
      for (let n = 0; n < 50 && !updated.includes('mem://ready'); n += 1) {
        a.server.notify('notifications/resources/updated', { uri: 'mem://ready' });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(updated).toContain('mem://ready');

      b.server.notify('notifications/resources/updated', { uri: 'mem://doc' });
      b.server.notify('notifications/tools/list_changed');
      b.server.notify('notifications/resources/updated', { uri: 'mem://fence' });
      await waitFor(() => updated.includes('mem://fence'), 'the fence from B');
      expect(updated.filter((uri) => uri !== 'mem://ready')).toEqual(['mem://doc', 'mem://fence']);
      expect(listChanged).toBe(1);
    } finally {
      await sdk.close();
      await http.close();
    }
  }, 20_000);
});
