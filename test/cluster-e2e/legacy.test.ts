/**
 * Legacy sessions across nodes, through the round-robin proxy: a session
 * created on one node works through the others (its requests are relayed to
 * the owner), including an elicitation whose answer lands on another node
 * than the question and an approval parked on the owner; and its standalone
 * SSE stream, dropped, resumes with Last-Event-ID on another node with what
 * was sent meanwhile (the event store in Redis Streams) and nothing twice.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { NOTES_URI } from '../../examples/cluster/server.js';
import { clusterPerFile } from '../helpers/cluster-harness.js';
import { closeClients, LEGACY, legacyClient, rawCall, rawLegacySession, textOf, whoami, type ElicitAnswer } from './clients.js';
import { openSse } from './sse-stream.js';

const cluster = clusterPerFile({ nodes: 3 });
afterEach(closeClients);

function answers(...given: ElicitAnswer[]): () => ElicitAnswer {
  return () => {
    const next = given.shift();
    if (next === undefined) throw new Error('asked more often than expected');
    return next;
  };
}

describe('a legacy session across nodes', () => {
  for (const wire of ['streamable', 'sse'] as const) {
    test(`${wire}: made on one node, served through all three; an elicitation and an approval answered from other nodes`, async () => {
      const url = wire === 'sse' ? cluster.sseUrl : cluster.url;
      const { client } = await legacyClient(url, wire, answers({ action: 'accept', content: { name: 'Grace' } }, { action: 'accept', content: { approve: true } }));
      const owners = new Set<string>();
      for (let i = 0; i < 6; i++) owners.add(await whoami(client));
      // The relay takes every request of the session to the node that owns it.
      expect(owners.size).toBe(1);
      const owner = [...owners][0]!;
      expect(textOf(await client.callTool({ name: 'greet', arguments: {} }))).toBe(`Hello, Grace, from ${owner}`);
      const note = `legacy-${wire}`;
      await rawCall(cluster.url, 1, { name: 'add_note', arguments: { id: note, text: 'to delete' } });
      expect(textOf(await client.callTool({ name: 'delete_note', arguments: { id: note } }))).toBe(`Deleted note ${note} on ${owner}`);
      expect(await cluster.ledger.runs(`delete.${note}`)).toEqual([owner]);
    });
  }

  test('its GET stream, dropped, resumes with Last-Event-ID on another node: what was sent meanwhile, nothing twice', async () => {
    const session = await rawLegacySession(cluster.url, NOTES_URI);

    const first = await openSse(cluster.url, { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY });
    expect(first.status).toBe(200);
    await rawCall(cluster.node('c').url, 3, { name: 'add_note', arguments: { id: 'r1', text: 'live' } });
    const [live] = await first.waitFor(1);
    expect(live!.data).toMatchObject({ method: 'notifications/resources/updated', params: { uri: NOTES_URI } });
    const resumeFrom = first.lastId();
    expect(resumeFrom).toBeDefined();
    first.drop();

    // Sent while no stream is open: kept for the session.
    await rawCall(cluster.node('b').url, 4, { name: 'add_note', arguments: { id: 'r2', text: 'while dropped' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The proxy sends the reconnect to the next node: a different one from the first GET's.
    const resumed = await openSse(cluster.url, { 'mcp-session-id': session, 'mcp-protocol-version': LEGACY, 'last-event-id': resumeFrom! });
    expect(resumed.status).toBe(200);
    const [missed] = await resumed.waitFor(1);
    expect(missed!.data).toMatchObject({ method: 'notifications/resources/updated', params: { uri: NOTES_URI } });
    await rawCall(cluster.node('a').url, 5, { name: 'add_note', arguments: { id: 'r3', text: 'after resume' } });
    await resumed.waitFor(2);
    // A marker: by the time a third change is heard, a duplicate of the first two would have arrived.
    await rawCall(cluster.node('a').url, 6, { name: 'add_note', arguments: { id: 'r4', text: 'marker' } });
    const all = await resumed.waitFor(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed.events).toHaveLength(3);
    expect(all.map((event) => (event.data as { method?: string }).method)).toEqual([
      'notifications/resources/updated',
      'notifications/resources/updated',
      'notifications/resources/updated',
    ]);
    expect(new Set(all.map((event) => event.id)).size).toBe(3);
    expect(all.every((event) => event.id !== resumeFrom)).toBe(true);
    resumed.drop();
  });
});
