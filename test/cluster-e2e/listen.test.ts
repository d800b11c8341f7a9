/**
 * Changes cross nodes on the Redis event bus: a `subscriptions/listen` stream
 * open on node A (SDK v2, pinned 2026-07-28) hears a change made on node C;
 * one opened through the proxy hears changes made on every node; and a legacy
 * session on A that sent `resources/subscribe` (SDK v1) hears C's change too.
 */
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, test } from 'vitest';
import { NOTES_URI } from '../../examples/cluster/server.js';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { closeClients, legacyClient, modernClient, textOf, until } from './clients.js';

const cluster = clusterPerFile({ nodes: 3 });
afterEach(closeClients);

describe('a change on one node reaches listeners on the others', () => {
  test('a listen on A hears a note added on C, and only once', async () => {
    const listener = await modernClient(cluster.node('a').url);
    const heard: string[] = [];
    listener.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const subscription = await listener.listen({ resourceSubscriptions: [NOTES_URI] });
    expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [NOTES_URI] });

    const writer = await modernClient(cluster.node('c').url);
    expect(textOf(await writer.callTool({ name: 'add_note', arguments: { id: 'l1', text: 'from c' } }))).toBe('Added note l1 on c');
    await until(async () => heard, (uris) => uris.length >= 1);
    // A marker change after it: once the marker is heard, a duplicate of the first would have been too.
    await writer.callTool({ name: 'add_note', arguments: { id: 'l2', text: 'marker' } });
    await until(async () => heard, (uris) => uris.length >= 2);
    expect(heard).toEqual([NOTES_URI, NOTES_URI]);
    await subscription.close();
  });

  test('a listen opened through the proxy hears changes made through the proxy, wherever they land', async () => {
    const listener = await modernClient(cluster.url);
    const heard: string[] = [];
    listener.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    const subscription = await listener.listen({ resourceSubscriptions: [NOTES_URI] });
    const writer = await modernClient(cluster.url);
    const added = [];
    for (const id of ['p1', 'p2', 'p3']) added.push(textOf(await writer.callTool({ name: 'add_note', arguments: { id, text: id } })));
    // Round robin: the three changes were made on three different nodes.
    expect(new Set(added.map((line) => line.slice(-1)))).toEqual(new Set(['a', 'b', 'c']));
    await until(async () => heard, (uris) => uris.length >= 3);
    expect(heard).toEqual([NOTES_URI, NOTES_URI, NOTES_URI]);
    await subscription.close();
  });

  test('a legacy session on A subscribed to the notes hears a change made on C', async () => {
    const { client } = await legacyClient(cluster.node('a').url, 'streamable');
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
    await client.subscribeResource({ uri: NOTES_URI });
    const writer = await modernClient(cluster.node('c').url);
    await writer.callTool({ name: 'add_note', arguments: { id: 'l3', text: 'from c to a legacy session' } });
    await until(async () => heard, (uris) => uris.length >= 1);
    expect(heard).toEqual([NOTES_URI]);
  });
});
