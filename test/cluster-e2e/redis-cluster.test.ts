/**
 * The whole deployment on a 3-master Redis Cluster (every key and channel
 * under the deployment's hash tag, so every script and sharded channel sits
 * in one slot): through the proxy, modern calls spread, a listen on one node
 * hears another's change, an approval asked on one node runs once when
 * answered on two others at once, a legacy session works through every node,
 * and the permits hold their cap under a flood.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { NOTES_URI } from '../../examples/cluster/server.js';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { busyScope, closeClients, legacyClient, modernClient, rawCall, textOf, until, whoami, type ElicitAnswer } from './clients.js';

const CAP = 4;
const cluster = clusterPerFile({
  nodes: 3,
  redisCluster: true,
  nodeArgs: ['--cluster-options', JSON.stringify({ permits: { maxInFlight: CAP, maxInFlightPerPrincipal: CAP, leaseMs: 3000 } })],
}, 45_000);
afterEach(closeClients);

describe('the cluster example on a Redis Cluster', () => {
  test('spread, cross-node listen, one approval run, a legacy session across nodes', async () => {
    expect(cluster.redisUrls).toHaveLength(3);
    const client = await modernClient(cluster.url);
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) served.add(await whoami(client));
    expect(served).toEqual(new Set(['a', 'b', 'c']));

    const listener = await modernClient(cluster.node('a').url);
    const heard: string[] = [];
    listener.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
    await listener.listen({ resourceSubscriptions: [NOTES_URI] });
    await rawCall(cluster.node('c').url, 1, { name: 'add_note', arguments: { id: 'rc', text: 'on a Redis Cluster' } });
    await until(async () => heard, (uris) => uris.length >= 1);
    expect(heard).toEqual([NOTES_URI]);

    const elicit = { capabilities: { elicitation: {} } };
    const asked = await rawCall(cluster.node('a').url, 2, { name: 'delete_note', arguments: { id: 'rc' } }, elicit);
    const retry = { name: 'delete_note', arguments: { id: 'rc' }, requestState: asked.result!.requestState!, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } };
    const [onB, onC] = await Promise.all([rawCall(cluster.node('b').url, 3, retry, elicit), rawCall(cluster.node('c').url, 4, retry, elicit)]);
    expect([onB, onC].map((reply) => reply.result?.resultType).sort()).toEqual(['complete', 'input_required']);
    expect(await cluster.ledger.runs('delete.rc')).toHaveLength(1);

    const answers: ElicitAnswer[] = [{ action: 'accept', content: { name: 'Lin' } }];
    const { client: legacy } = await legacyClient(cluster.url, 'streamable', () => answers.shift() ?? { action: 'decline' });
    const owner = await whoami(legacy);
    expect(await whoami(legacy)).toBe(owner);
    expect(textOf(await legacy.callTool({ name: 'greet', arguments: {} }))).toBe(`Hello, Lin, from ${owner}`);
  });

  test('the permits hold their cap under a flood through the proxy', async () => {
    await cluster.ledger.resetGaugeMax();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => rawCall(cluster.url, 10 + i, { name: 'hold', arguments: { ms: 300 } })));
    expect(replies.filter((reply) => busyScope(reply) !== undefined).length).toBeGreaterThan(0);
    const max = await cluster.ledger.gaugeMax();
    expect(max).toBeGreaterThan(1);
    expect(max).toBeLessThanOrEqual(CAP);
  });
});
