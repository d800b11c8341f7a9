/**
 * Kill one node mid-call (SIGKILL), with everything a node can hold at that
 * moment: a tool call in flight (its side effect still to come), permits of
 * the cluster-wide cap, an approval ticket it issued, a listen stream,
 * legacy sessions it owns (Streamable HTTP and HTTP+SSE), another node's
 * legacy GET stream relayed through it; listeners and calls on the other
 * nodes. Then: no tool ran twice; the dead node's permits stay counted until
 * its lease lapses and return within one lease, the cap never passed
 * meanwhile; its ticket is redeemed exactly once elsewhere; the survivors'
 * listeners go on hearing changes once, the dead node's sees an abrupt end;
 * its legacy sessions fail at once (404) and new sessions work; the relayed
 * stream resumes elsewhere; the survivors' own calls finish; the node started
 * again serves. Real time, bounded: the whole file takes a few seconds.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { noteUri, NOTES_URI } from '../../examples/cluster/server.js';
import { startCluster, type Cluster } from '../helpers/cluster-harness.js';
import { busyScope, closeClients, LEGACY, legacyClient, modernClient, rawCall, rawLegacySession, textOf, until, whoami, type RawReply } from './clients.js';
import { openSse, type SseStream } from './sse-stream.js';

const CAP = 6;
const LEASE_MS = 3_000;
const VICTIM_HOLDS = 3;
/** The note whose own URI the relayed legacy session subscribes: only its changes reach that stream. */
const PROBE = 'relay-probe';
const PROBE_URI = noteUri(PROBE);

let cluster: Cluster;
let victim: string;
let survivors: [string, string];
let killedAt = 0;
const aborts = new AbortController();

// What was set up before the kill.
let inFlight: Promise<unknown>;
let survivorCall: Promise<RawReply>;
let ticket: string;
const heard = new Map<string, string[]>();
let victimListenClosed: Promise<string>;
let legacyOnVictim: Awaited<ReturnType<typeof legacyClient>>['client'];
let sseOnVictim: Awaited<ReturnType<typeof legacyClient>>['client'];
let caller: Awaited<ReturnType<typeof modernClient>>;
let relayedSession: string;
let relayedStream: SseStream;

const hold = (node: string, ms: number, id: number) =>
  rawCall(cluster.node(node).url, id, { name: 'hold', arguments: { ms } }, { signal: aborts.signal });

beforeAll(async () => {
  cluster = await startCluster({
    nodes: 3,
    nodeArgs: ['--cluster-options', JSON.stringify({ permits: { maxInFlight: CAP, maxInFlightPerPrincipal: CAP, leaseMs: LEASE_MS } })],
  });
  // 1. A call through the proxy, in flight: where it started is the node to kill.
  caller = await modernClient(cluster.url);
  inFlight = caller.callTool({ name: 'record', arguments: { key: 'k1', ms: 10_000 } }).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  victim = (await until(() => cluster.ledger.starts('k1'), (starts) => starts.length === 1))[0]!;
  survivors = cluster.nodes.map((node) => node.id).filter((id) => id !== victim) as [string, string];

  // 2. Listeners on every node.
  for (const node of cluster.nodes) {
    const listener = await modernClient(node.url);
    const uris: string[] = [];
    heard.set(node.id, uris);
    listener.setNotificationHandler('notifications/resources/updated', (n) => void uris.push(n.params.uri));
    const subscription = await listener.listen({ resourceSubscriptions: [NOTES_URI] });
    if (node.id === victim) victimListenClosed = subscription.closed;
  }

  // 3. An approval ticket issued by the victim.
  await rawCall(cluster.node(survivors[0]).url, 1, { name: 'add_note', arguments: { id: 'doomed', text: 'to delete' } });
  const asked = await rawCall(cluster.node(victim).url, 2, { name: 'delete_note', arguments: { id: 'doomed' } }, { capabilities: { elicitation: {} } });
  expect(asked.result?.resultType).toBe('input_required');
  ticket = asked.result!.requestState!;

  // 4. Permits held by the victim: the in-flight record call and VICTIM_HOLDS holds.
  await cluster.ledger.resetGaugeMax();
  for (let i = 0; i < VICTIM_HOLDS; i++) void hold(victim, 10_000, 10 + i).catch(() => undefined);
  await until(() => cluster.ledger.gaugeMax(), (max) => max >= VICTIM_HOLDS);

  // 5. A legacy session the victim owns, made through the proxy (round robin: within three tries).
  for (let i = 0; i < 6 && legacyOnVictim === undefined; i++) {
    const { client } = await legacyClient(cluster.url, 'streamable');
    if ((await whoami(client)) === victim) legacyOnVictim = client;
  }
  expect(legacyOnVictim).toBeDefined();
  // And an HTTP+SSE session whose stream the victim holds (GET /sse makes the session where it lands).
  for (let i = 0; i < 6 && sseOnVictim === undefined; i++) {
    const { client } = await legacyClient(cluster.sseUrl, 'sse');
    if ((await whoami(client)) === victim) sseOnVictim = client;
  }
  expect(sseOnVictim).toBeDefined();

  // 6. A legacy session a survivor owns, its GET stream opened on the victim (relayed to the owner): the victim holds the stream.
  relayedSession = await rawLegacySession(cluster.node(survivors[0]).url, PROBE_URI);
  relayedStream = await openSse(cluster.node(victim).url, { 'mcp-session-id': relayedSession, 'mcp-protocol-version': LEGACY });
  expect(relayedStream.status).toBe(200);
  await rawCall(cluster.node(survivors[1]).url, 4, { name: 'add_note', arguments: { id: PROBE, text: 'before the kill' } });
  await relayedStream.waitFor(1);

  // 7. A survivor's own call under way.
  survivorCall = rawCall(cluster.node(survivors[0]).url, 3, { name: 'record', arguments: { key: 'k2', ms: 1_500 } });

  await cluster.kill(victim);
  killedAt = Date.now();
}, 40_000);

afterAll(async () => {
  aborts.abort();
  await closeClients();
  await cluster?.stop();
});

describe('a node killed mid-call', () => {
  test("the dead node's permits count until its lease lapses, return within one lease, and the cap never passes", async () => {
    // Right after the kill the victim's permits (the record call and its holds) still count.
    const early = await Promise.all(Array.from({ length: CAP }, (_, i) => hold(survivors[i % 2]!, 200, 100 + i)));
    // The victim renewed at most a third of a lease before it died: its permits are certain to count until then.
    expect(Date.now() - killedAt).toBeLessThan((LEASE_MS * 2) / 3);
    expect(early.filter((reply) => busyScope(reply) === undefined).length).toBeLessThanOrEqual(CAP - VICTIM_HOLDS - 1);
    expect(early.filter((reply) => busyScope(reply) === 'cluster').length).toBeGreaterThan(0);
    // Then all CAP at once are granted again, within one lease (plus the renewal period and slack).
    let rounds = 0;
    const allGranted = await until(
      async () => {
        rounds += 1;
        const replies = await Promise.all(Array.from({ length: CAP }, (_, i) => hold(survivors[i % 2]!, 100, 200 + rounds * CAP + i)));
        return replies.every((reply) => busyScope(reply) === undefined && reply.result?.isError !== true);
      },
      (ok) => ok,
      LEASE_MS * 3,
      100,
    );
    expect(allGranted).toBe(true);
    expect(Date.now() - killedAt).toBeLessThan(LEASE_MS + LEASE_MS / 3 + 1_500);
    expect(await cluster.ledger.gaugeMax()).toBeLessThanOrEqual(CAP);
  });

  test('no tool runs twice: the call in flight breaks, its re-issue runs once on a survivor', async () => {
    const outcome = (await inFlight) as { error?: unknown };
    expect(outcome.error).toBeDefined();
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    // A client re-issues what broke (a new request id); a busy answer (the cap, while the dead node's permits count) runs nothing and is tried again.
    const reissue = async () => textOf(await caller.callTool({ name: 'record', arguments: { key: 'k1', ms: 0 } }));
    const answer = await until(reissue, (text) => text !== 'Error: server_busy', LEASE_MS * 2, 100);
    const again = JSON.parse(answer) as { node: string; runs: number };
    expect(survivors).toContain(again.node);
    expect(again.runs).toBe(1);
    expect(await cluster.ledger.runs('k1')).toEqual([again.node]);
    expect(await cluster.ledger.starts('k1')).toEqual([victim, again.node]);
  });

  test("its ticket is redeemed exactly once on the survivors", async () => {
    const retry = { name: 'delete_note', arguments: { id: 'doomed' }, requestState: ticket, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } };
    const replies = await Promise.all(survivors.map((node, i) => rawCall(cluster.node(node).url, 300 + i, retry, { capabilities: { elicitation: {} } })));
    expect(replies.map((reply) => reply.result?.resultType).sort()).toEqual(['complete', 'input_required']);
    expect(await cluster.ledger.runs('delete.doomed')).toHaveLength(1);
    expect(survivors).toContain((await cluster.ledger.runs('delete.doomed'))[0]);
  });

  test("listeners on the survivors hear later changes once; the dead node's listener ended abruptly", async () => {
    expect(await Promise.race([victimListenClosed, new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000))])).toBe('remote');
    // Both listeners heard every change since they opened: once they agree (after the earlier tests' changes had time to land), nothing earlier is on its way.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const before = await until(async () => survivors.map((node) => heard.get(node)!.length), ([first, second]) => first === second);
    await rawCall(cluster.node(survivors[1]).url, 400, { name: 'add_note', arguments: { id: 'after-kill', text: 'heard by survivors' } });
    await until(async () => survivors.map((node) => heard.get(node)!.length), (counts) => counts.every((count, i) => count >= before[i]! + 1));
    await rawCall(cluster.node(survivors[0]).url, 401, { name: 'add_note', arguments: { id: 'marker', text: 'marker' } });
    await until(async () => survivors.map((node) => heard.get(node)!.length), (counts) => counts.every((count, i) => count >= before[i]! + 2));
    expect(survivors.map((node) => heard.get(node)!.length)).toEqual(before.map((count) => count + 2));
  });

  test('its legacy session answers 404 at once (never hangs), and the official client starts a new session that works', async () => {
    const started = Date.now();
    const failure = await legacyOnVictim.callTool({ name: 'whoami', arguments: {} }).then(() => undefined, (error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(String((failure as Error | undefined)?.message)).toMatch(/404|Not Found/);
    const { client } = await legacyClient(cluster.url, 'streamable');
    expect(survivors).toContain(await whoami(client));
  });

  test('its HTTP+SSE session: the next request fails at once with a clear answer, and a new SSE session works', async () => {
    const started = Date.now();
    const failure = await sseOnVictim.callTool({ name: 'whoami', arguments: {} }).then(() => undefined, (error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The SDK's EventSource reconnects GET /sse by itself, through the proxy to a survivor, which opens a NEW session
    // (the 2024-11-05 transport has no resumption) and the client posts there uninitialized: -32600, never a hang.
    // Had it not reconnected yet, the old session's POST would be the 404.
    expect(String((failure as Error | undefined)?.message)).toMatch(/404|Not Found|send initialize first/);
    const { client } = await legacyClient(cluster.sseUrl, 'sse');
    expect(survivors).toContain(await whoami(client));
  });

  test("a survivor's legacy session whose stream the dead node carried resumes it elsewhere with what was sent meanwhile", async () => {
    const resumeFrom = relayedStream.lastId();
    expect(resumeFrom).toBeDefined();
    await rawCall(cluster.node(survivors[1]).url, 500, { name: 'add_note', arguments: { id: PROBE, text: 'while no stream was open' } });
    const resumed = await openSse(cluster.url, { 'mcp-session-id': relayedSession, 'mcp-protocol-version': LEGACY, 'last-event-id': resumeFrom! });
    expect(resumed.status).toBe(200);
    const [missed] = await resumed.waitFor(1);
    expect(missed!.data).toMatchObject({ method: 'notifications/resources/updated', params: { uri: PROBE_URI } });
    await rawCall(cluster.node(survivors[0]).url, 501, { name: 'add_note', arguments: { id: PROBE, text: 'after the resume' } });
    await resumed.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resumed.events).toHaveLength(2);
    expect(resumed.events.every((event) => event.id !== resumeFrom)).toBe(true);
    resumed.drop();
  });

  test("the survivors' own work is unaffected: the call under way finishes, new calls spread over the two", async () => {
    const reply = await survivorCall;
    expect(JSON.parse(textOf(reply.result))).toMatchObject({ node: survivors[0], key: 'k2', runs: 1 });
    const served = new Set<string>();
    for (let i = 0; i < 6; i++) served.add(await whoami(caller));
    expect(served).toEqual(new Set(survivors));
  });

  test('the node started again under its name serves again: calls spread over all three', async () => {
    await cluster.restart(victim);
    const served = new Set<string>();
    for (let i = 0; i < 9; i++) served.add(await whoami(caller));
    expect(served).toEqual(new Set(['a', 'b', 'c']));
  });
});
