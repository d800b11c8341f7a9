/**
 * RedisEventBus on a real Redis and on a 3-node Redis Cluster: buses on
 * separate links stand for separate processes of one deployment. A publish
 * reaches the other buses' listeners once and its own listeners once
 * (synchronously, with no echo from Redis); messages that are not a valid
 * bus message are dropped and logged; unsubscribing stops delivery; two
 * deployments do not hear each other.
 *
 * "Once" is checked behind a fence: after the event under test has reached
 * every bus, another bus publishes a marker; when the marker has arrived
 * everywhere, Redis has written the earlier message (and any echo of it) to
 * every subscriber connection before it, so nothing about it is still on the
 * way.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { BusEvent } from '../../lib/ports/event-bus.js';
import { connectRedis } from '../../cluster/redis/connect.js';
import { createRedisEventBus, type RedisEventBus } from '../../cluster/redis/event-bus.js';
import { clusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import { REDIS_TOPOLOGIES, startRedis, startRedisTopology, type RedisServer, type RedisTopology } from '../helpers/redis-server.js';
import { recordingLogger, uniqueServerId, waitFor, type RecordingLogger } from './redis-bus-helpers.js';

interface Node {
  readonly bus: RedisEventBus;
  /** Everything its subscribe listener heard. */
  readonly heard: BusEvent[];
  /** Everything its subscribeRemote listener heard. */
  readonly remote: BusEvent[];
  readonly logger: RecordingLogger;
}

const fence = (n: number): BusEvent => ({ type: 'resource_updated', uri: `fence://${n}` });
const has = (events: readonly BusEvent[], event: BusEvent) => events.some((e) => JSON.stringify(e) === JSON.stringify(event));
const count = (events: readonly BusEvent[], event: BusEvent) => events.filter((e) => JSON.stringify(e) === JSON.stringify(event)).length;

describe.each(REDIS_TOPOLOGIES)('RedisEventBus on %s', (_name, clustered) => {
  let redis: RedisTopology | undefined;
  let links: RedisLink[] = [];
  const buses: RedisEventBus[] = [];

  beforeAll(async () => {
    redis = await startRedisTopology(clustered);
    links = await redis.links(4);
  }, 30_000);

  afterAll(async () => {
    for (const bus of buses) await bus.close().catch(() => undefined);
    await redis?.stop();
  });

  /** One bus per link (= per process) of deployment `serverId`. */
  async function deployment(serverId: string, n = 3): Promise<Node[]> {
    const nodes: Node[] = [];
    for (let i = 0; i < n; i += 1) {
      const logger = recordingLogger();
      const bus = await createRedisEventBus({ link: links[i]!, keys: clusterKeys(serverId), nodeId: `node-${i}`, logger });
      buses.push(bus);
      const heard: BusEvent[] = [];
      const remote: BusEvent[] = [];
      bus.subscribe((event) => heard.push(event));
      bus.subscribeRemote((event) => remote.push(event));
      nodes.push({ bus, heard, remote, logger });
    }
    return nodes;
  }

  /** `from` publishes a marker and every node has heard it. */
  async function fenced(nodes: readonly Node[], from: Node, n: number): Promise<void> {
    from.bus.publish(fence(n));
    await waitFor(() => nodes.every((node) => has(node.heard, fence(n))), `fence ${n}`);
  }

  test('a publish reaches its own listeners synchronously and every other process once; no echo', async () => {
    const nodes = await deployment(uniqueServerId('bus-once'));
    const [a, b, c] = nodes as [Node, Node, Node];
    const event: BusEvent = { type: 'tools_list_changed' };
    a.bus.publish(event);
    expect(a.heard).toEqual([event]);
    await waitFor(() => has(b.heard, event) && has(c.heard, event), 'the event on b and c');
    await fenced(nodes, c, 1);
    for (const node of nodes) expect(count(node.heard, event)).toBe(1);
    // The remote listeners hear other processes only.
    expect(a.remote).toEqual([fence(1)]);
    expect(b.remote).toEqual([event, fence(1)]);
    expect(c.remote).toEqual([event]);
    for (const node of nodes) expect(node.logger.lines).toEqual([]);
  });

  test('events keep their order and their URI; extra fields a publisher added do not travel', async () => {
    const nodes = await deployment(uniqueServerId('bus-order'), 2);
    const [a, b] = nodes as [Node, Node];
    const sent: BusEvent[] = [
      { type: 'resource_updated', uri: 'mem://a?x=ü' },
      { type: 'prompts_list_changed' },
      { type: 'resources_list_changed' },
    ];
    for (const event of sent) a.bus.publish(event);
    a.bus.publish({ type: 'tools_list_changed', extra: 'secret' } as unknown as BusEvent);
    await waitFor(() => b.heard.length === 4, 'four events on b');
    expect(b.heard).toStrictEqual([...sent, { type: 'tools_list_changed' }]);
  });

  test('invalid messages published raw on the channel are dropped and logged; valid ones still pass', async () => {
    const serverId = uniqueServerId('bus-raw');
    const nodes = await deployment(serverId, 2);
    const [a, b] = nodes as [Node, Node];
    const channel = clusterKeys(serverId).channel('events');
    const raw = (message: unknown) => links[3]!.publish(channel, typeof message === 'string' ? message : JSON.stringify(message));
    const good = (seq: number, event: unknown = { type: 'prompts_list_changed' }) => ({ v: 1, node: 'raw', bus: 'raw-bus', seq, event });
    const bad: unknown[] = [
      'not json {',
      '42',
      { v: 2, node: 'raw', bus: 'raw-bus', seq: 1, event: { type: 'tools_list_changed' } },
      good(1, { type: 'tools_deleted' }),
      good(1, { type: 'resource_updated', uri: 7 }),
      good(1, { type: 'resource_updated' }),
      { ...good(1), seq: 0 },
      { ...good(1), seq: 1.5 },
      { ...good(1), bus: '' },
      { ...good(1), node: 'n'.repeat(200) },
      good(1, { type: 'resource_updated', uri: `mem://${'x'.repeat(20_000)}` }),
    ];
    for (const message of bad) await raw(message);
    await raw(good(5));
    await raw(good(5)); // the same sequence number again: a replay
    await raw(good(3)); // older than the last one heard from that sender
    await raw(good(6, { type: 'resource_updated', uri: 'mem://after' }));
    await waitFor(() => has(a.heard, { type: 'resource_updated', uri: 'mem://after' }) && has(b.heard, { type: 'resource_updated', uri: 'mem://after' }), 'the last valid message');
    for (const node of nodes) {
      expect(node.heard).toEqual([{ type: 'prompts_list_changed' }, { type: 'resource_updated', uri: 'mem://after' }]);
      expect(node.remote).toEqual(node.heard);
      const drops = node.logger.lines.filter(([, , msg]) => msg === 'dropped a message on the Redis event bus');
      // The first ten drops are logged one by one (then one line per thousand).
      expect(drops).toHaveLength(10);
      expect(drops.map(([level]) => level)).toEqual(Array(10).fill('warn'));
    }
  });

  test('unsubscribing stops delivery, for local and remote listeners alike', async () => {
    const nodes = await deployment(uniqueServerId('bus-unsub'), 2);
    const [a, b] = nodes as [Node, Node];
    const gone: BusEvent[] = [];
    const goneRemote: BusEvent[] = [];
    const offLocal = b.bus.subscribe((event) => gone.push(event));
    const offRemote = b.bus.subscribeRemote((event) => goneRemote.push(event));
    a.bus.publish({ type: 'tools_list_changed' });
    await waitFor(() => gone.length === 1 && goneRemote.length === 1, 'the first event');
    offLocal();
    offLocal();
    offRemote();
    a.bus.publish({ type: 'prompts_list_changed' });
    b.bus.publish({ type: 'resources_list_changed' });
    await fenced(nodes, a, 2);
    expect(gone).toEqual([{ type: 'tools_list_changed' }]);
    expect(goneRemote).toEqual([{ type: 'tools_list_changed' }]);
    // b's own publish reached it synchronously, a's came through Redis: the order between them is not fixed.
    expect(new Set(b.heard.map((e) => e.type))).toEqual(new Set(['tools_list_changed', 'prompts_list_changed', 'resources_list_changed', 'resource_updated']));
    expect(b.heard).toHaveLength(4);
  });

  test('two deployments (server ids) on one Redis do not hear each other', async () => {
    const x = await deployment(uniqueServerId('bus-x'), 2);
    const y = await deployment(uniqueServerId('bus-y'), 2);
    x[0]!.bus.publish({ type: 'tools_list_changed' });
    await waitFor(() => x[1]!.heard.length === 1, 'the event inside deployment x');
    // Published after x's event had reached x: had y's channel carried it, it would be ahead of this marker.
    await fenced(y, y[1]!, 3);
    expect(y.map((node) => node.heard)).toEqual([[fence(3)], [fence(3)]]);
  });

  test('a closed bus stops hearing Redis, and its publishes reach its own listeners only', async () => {
    const nodes = await deployment(uniqueServerId('bus-close'), 3);
    const [a, b, c] = nodes as [Node, Node, Node];
    await b.bus.close();
    await b.bus.close();
    b.bus.publish({ type: 'prompts_list_changed' });
    expect(b.heard).toEqual([{ type: 'prompts_list_changed' }]);
    a.bus.publish({ type: 'tools_list_changed' });
    await waitFor(() => c.heard.length === 1, 'the event on c');
    await fenced([a, c], c, 4);
    expect(b.heard).toEqual([{ type: 'prompts_list_changed' }]);
    expect(c.heard).toEqual([{ type: 'tools_list_changed' }, fence(4)]);
  });
});

describe('RedisEventBus across a Redis restart', () => {
  let redis: RedisServer;
  const links: RedisLink[] = [];
  const buses: RedisEventBus[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    for (let i = 0; i < 2; i += 1) links.push(await connectRedis(redis.url));
  }, 30_000);

  afterAll(async () => {
    for (const bus of buses) await bus.close().catch(() => undefined);
    for (const link of links) await link.close().catch(() => undefined);
    await redis?.stop();
  });

  test('publishing while Redis is down does not throw; after it is back, node-redis re-subscribes and events flow again', async () => {
    const keys = clusterKeys(uniqueServerId('bus-restart'));
    const logger = recordingLogger();
    const a = await createRedisEventBus({ link: links[0]!, keys, nodeId: 'a', logger });
    const b = await createRedisEventBus({ link: links[1]!, keys, nodeId: 'b', logger });
    buses.push(a, b);
    const heardA: BusEvent[] = [];
    const heardB: BusEvent[] = [];
    a.subscribe((event) => heardA.push(event));
    b.subscribe((event) => heardB.push(event));
    a.publish(fence(0));
    await waitFor(() => heardB.length === 1, 'delivery before the restart');

    const port = redis.port;
    await redis.stop();
    expect(() => a.publish({ type: 'tools_list_changed' })).not.toThrow();
    expect(heardA.at(-1)).toEqual({ type: 'tools_list_changed' });
    redis = await startRedis({ port });

    // Bounded: at most 100 tries over 10 s, each a new marker, until one crosses.
    let crossed = false;
    for (let n = 1; n <= 100 && !crossed; n += 1) {
      a.publish(fence(n));
      await new Promise((resolve) => setTimeout(resolve, 100));
      crossed = heardB.some((event) => event.type === 'resource_updated' && event.uri !== 'fence://0');
    }
    expect(crossed).toBe(true);
    // Nothing arrived twice, whatever was lost while Redis was down.
    const uris = heardB.map((event) => JSON.stringify(event));
    expect(new Set(uris).size).toBe(uris.length);
  }, 30_000);
});
