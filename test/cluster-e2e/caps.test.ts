/**
 * Cluster-wide caps (leased permits in Redis) under a flood: handlers that
 * count themselves in a gauge kept in Redis (the example's `hold` tool) show
 * how many ran at once on all live nodes together, and that number never
 * passes the cap, while the refused calls say which cap refused them.
 * Through the proxy every call comes from one peer (the proxy names the
 * client), so the per-principal cap binds; sent to the nodes directly with
 * distinct X-Forwarded-For values (the nodes trust that header) there are
 * several principals and the deployment's cap binds.
 */
import { describe, expect, test } from 'vitest';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { busyScope, rawCall, type RawReply } from './clients.js';

const MAX_IN_FLIGHT = 6;
const PER_PRINCIPAL = 4;
const FLOOD = 30;
const HOLD_MS = 300;

const cluster = clusterPerFile({
  nodes: 3,
  nodeArgs: ['--cluster-options', JSON.stringify({ permits: { maxInFlight: MAX_IN_FLIGHT, maxInFlightPerPrincipal: PER_PRINCIPAL, leaseMs: 3000 } })],
});

function tally(replies: readonly RawReply[]): { ran: number; busy: Record<string, number>; other: number } {
  const busy: Record<string, number> = {};
  let ran = 0;
  let other = 0;
  for (const reply of replies) {
    const scope = busyScope(reply);
    if (scope !== undefined) busy[scope] = (busy[scope] ?? 0) + 1;
    else if (reply.result?.isError !== true && reply.result?.content !== undefined) ran += 1;
    else other += 1;
  }
  return { ran, busy, other };
}

describe('caps hold across the cluster under a flood', () => {
  test('through the proxy (one principal): never more than the per-principal cap at once on all nodes together', async () => {
    await cluster.ledger.resetGaugeMax();
    const replies = await Promise.all(Array.from({ length: FLOOD }, (_, i) => rawCall(cluster.url, i, { name: 'hold', arguments: { ms: HOLD_MS } })));
    const { ran, busy, other } = tally(replies);
    expect(other).toBe(0);
    expect(ran + (busy.principal ?? 0)).toBe(FLOOD);
    expect(busy.principal ?? 0).toBeGreaterThan(0);
    expect(ran).toBeGreaterThanOrEqual(PER_PRINCIPAL);
    const max = await cluster.ledger.gaugeMax();
    expect(max).toBeGreaterThan(1);
    expect(max).toBeLessThanOrEqual(PER_PRINCIPAL);
  });

  test('to every node directly from several principals: never more than the deployment cap at once', async () => {
    await cluster.ledger.resetGaugeMax();
    const nodes = cluster.nodes;
    const replies = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        rawCall(nodes[i % nodes.length]!.url, i, { name: 'hold', arguments: { ms: HOLD_MS } }, { headers: { 'x-forwarded-for': `10.0.0.${i % 5}` } }),
      ),
    );
    const { ran, busy, other } = tally(replies);
    expect(other).toBe(0);
    expect(busy.cluster ?? 0).toBeGreaterThan(0);
    expect(ran).toBeGreaterThanOrEqual(MAX_IN_FLIGHT);
    const max = await cluster.ledger.gaugeMax();
    expect(max).toBeGreaterThan(PER_PRINCIPAL);
    expect(max).toBeLessThanOrEqual(MAX_IN_FLIGHT);
  });
});
