/**
 * Three nodes behind the round-robin proxy (no stickiness), driven by the
 * official clients: calls spread across the nodes in both eras. Modern
 * requests are served wherever they land (whoami names the node); legacy
 * requests land on every node too and are answered in their session (the
 * relay takes them to the node that owns it).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { closeClients, legacyClient, modernClient, textOf, whoami } from './clients.js';

const cluster = clusterPerFile({ nodes: 3 });
afterEach(closeClients);

const CALLS = 9;

function forwardedSnapshot(): Map<string, number> {
  return new Map(cluster.proxy.forwarded);
}

function forwardedSince(before: Map<string, number>): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const node of cluster.nodes) delta[node.id] = (cluster.proxy.forwarded.get(node.origin) ?? 0) - (before.get(node.origin) ?? 0);
  return delta;
}

describe('calls spread across the nodes', () => {
  test('modern (SDK v2, pinned 2026-07-28): consecutive calls are served by all three nodes', async () => {
    const client = await modernClient(cluster.url);
    expect(client.getProtocolEra()).toBe('modern');
    const counts = new Map<string, number>();
    for (let i = 0; i < CALLS; i++) {
      const { node, served } = JSON.parse(textOf(await client.callTool({ name: 'whoami', arguments: {} }))) as { node: string; served: number };
      counts.set(node, served);
    }
    expect([...counts.keys()].sort()).toEqual(['a', 'b', 'c']);
    // Each node's own counter: together they served exactly the calls made (this file's first whoami calls).
    expect([...counts.values()].reduce((sum, count) => sum + count, 0)).toBe(CALLS);
    const echoes = await Promise.all(Array.from({ length: 6 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `e${i}` } })));
    expect(echoes.map(textOf)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'e5']);
  });

  test("modern (SDK v2, 'auto'): the probe finds the modern era through the proxy, and calls spread", async () => {
    const client = await modernClient(cluster.url, undefined, 'auto');
    expect(client.getProtocolEra()).toBe('modern');
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) served.add(await whoami(client));
    expect(served).toEqual(new Set(['a', 'b', 'c']));
  });

  test('legacy Streamable HTTP (SDK v1): one session, its requests land on every node and all are answered', async () => {
    const before = forwardedSnapshot();
    const { client } = await legacyClient(cluster.url, 'streamable');
    const served: string[] = [];
    for (let i = 0; i < CALLS; i++) served.push(await whoami(client));
    expect(served).toHaveLength(CALLS);
    const landed = forwardedSince(before);
    expect(Object.values(landed).every((count) => count >= 2)).toBe(true);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('record');
  });

  test('legacy HTTP+SSE (SDK v1): the stream stays on one node, the POSTs land on every node and are answered on that stream', async () => {
    const before = forwardedSnapshot();
    const { client } = await legacyClient(cluster.sseUrl, 'sse');
    const answers = [];
    for (let i = 0; i < CALLS; i++) answers.push(textOf(await client.callTool({ name: 'echo', arguments: { text: `sse ${i}` } })));
    expect(answers).toEqual(Array.from({ length: CALLS }, (_, i) => `sse ${i}`));
    const landed = forwardedSince(before);
    expect(Object.values(landed).every((count) => count >= 2)).toBe(true);
  });
});
