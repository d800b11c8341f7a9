/**
 * Finding: anyone could lock everyone out of new HTTP sessions. About a
 * thousand initialize POSTs filled `maxSessions` (shared by Streamable HTTP
 * and legacy SSE) and every new client got 503 for ten minutes, or forever
 * while the attacker touched its sessions; sloppy clients that abandon
 * sessions did the same. A full table must evict fairly instead: a peer
 * past its share makes room from its own sessions, a full table takes from
 * the peer holding the most (never-used, then idlest, busy last), and only
 * then is it a 503. Peers are told apart by a trusted proxy header here, so
 * every peer can come from 127.0.0.1.
 */
import { describe, expect, test } from 'vitest';
import { closedAfterEach, initializeMessage, postJson, virtualClock, eventually } from '../http/helpers.js';
import { evictionLog, initializeOnly, openLegacyStream, openStream, ping, session, type ClientHeaders } from '../http/session-clients.js';
import type { ServeHttpOptions } from '../../transports/index.js';

const PEER_HEADER = 'x-forwarded-for';

const { serve, track } = closedAfterEach();

async function serveWithLog(httpOptions: ServeHttpOptions, scheduler?: ReturnType<typeof virtualClock>['scheduler']) {
  const { logger, evictions } = evictionLog();
  const served = await serve({ logger, ...(scheduler === undefined ? {} : { scheduler }) }, { trustedProxyHeader: PEER_HEADER, ...httpOptions });
  return { served, evictions };
}

/** The headers of a client the trusted proxy says is `peer`. */
function from(peer: string): ClientHeaders {
  return { [PEER_HEADER]: peer };
}

/** Any client: the one pinging a session need not be its opener. */
const anyone = from('any');

describe('one peer cannot hold the session table', () => {
  test('an initialize flood from one peer stays within its share; a client from another peer still gets a session', async () => {
    const { served: s, evictions } = await serveWithLog({ maxSessions: 8 });
    const attack: string[] = [];
    // Bounded: ten times the table.
    for (let i = 0; i < 80; i += 1) {
      const init = await initializeOnly(s.url, from('203.0.113.66'));
      expect(init.status).toBe(200);
      attack.push(init.sessionId!);
    }
    expect(s.http.handler.stats().sessions).toBe(4); // the default share: half the table
    const victim = await session(s.url, from('198.51.100.7'));
    expect(await ping(s.url, victim, anyone)).toBe(200);
    // The flood only ever gave up its own sessions, oldest first.
    expect(evictions.length).toBe(80 - 4);
    expect(evictions.every((e) => e.peer === 'addr:203.0.113.66' && e.reason === 'peer-share')).toBe(true);
    expect(await ping(s.url, attack[0]!, anyone)).toBe(404);
    expect(await ping(s.url, attack[79]!, anyone)).toBe(200);
    expect(s.server.stats().connections).toBe(s.http.handler.stats().sessions);
  });

  test('a full table of many peers: a newcomer takes the place of a session of the peer holding the most, never-used first, then the idlest', async () => {
    const clock = virtualClock();
    const { served: s, evictions } = await serveWithLog({ maxSessions: 4, maxSessionsPerPeer: 3 }, clock.scheduler);
    const a1 = await session(s.url, from('a'));
    clock.advance(10);
    const b1 = await session(s.url, from('b'));
    clock.advance(10);
    const a2 = await session(s.url, from('a'));
    clock.advance(10);
    const a3 = (await initializeOnly(s.url, from('a'))).sessionId!; // never used after initialize: goes first although newest
    const c1 = await session(s.url, from('c'));
    expect(evictions.map((e) => [e.sessionId, e.reason, e.used])).toEqual([[a3, 'table-full', false]]);
    clock.advance(10);
    const c2 = await session(s.url, from('c')); // c holds 1, a holds 2: a's idlest goes
    expect(evictions[1]).toMatchObject({ sessionId: a1, peer: 'addr:a', forPeer: 'addr:c', used: true });
    for (const [id, status] of [[a1, 404], [a3, 404], [a2, 200], [b1, 200], [c1, 200], [c2, 200]] as const) {
      expect(await ping(s.url, id, anyone)).toBe(status);
    }
    expect(s.server.stats().connections).toBe(4);
  });

  test('busy sessions (a request in flight or an open stream) go last', async () => {
    const clock = virtualClock();
    const { served: s, evictions } = await serveWithLog({ maxSessions: 3, maxSessionsPerPeer: 2 }, clock.scheduler);
    const busy = await session(s.url, from('a'));
    await openStream(s.url, busy, from('a'), track);
    clock.advance(10);
    const idle = await session(s.url, from('a'));
    const b1 = await session(s.url, from('b'));
    await session(s.url, from('c')); // a holds the most: its idle session goes, though the busy one is idle longer
    expect(evictions.map((e) => e.sessionId)).toEqual([idle]);
    // a ties for the most and its one session is busy: its new session has nowhere to come from.
    expect((await initializeOnly(s.url, from('a'))).status).toBe(503);
    await session(s.url, from('d')); // a, b and c hold one each: an idle one goes before a's busy one
    expect(evictions[1]).toMatchObject({ sessionId: b1, busy: false });
    expect(await ping(s.url, busy, anyone)).toBe(200);
  });

  test('sessions kept busy cannot hold the table: the peer holding the most gives up a busy one, which ends cleanly', async () => {
    const { served: s, evictions } = await serveWithLog({ maxSessions: 3, maxSessionsPerPeer: 2 });
    const busy = [await session(s.url, from('a')), await session(s.url, from('a'))];
    const streams = [await openStream(s.url, busy[0]!, from('a'), track), await openStream(s.url, busy[1]!, from('a'), track)];
    const idle = await session(s.url, from('b'));
    const newcomer = await session(s.url, from('c'));
    expect(evictions).toHaveLength(1);
    expect(evictions[0]).toMatchObject({ peer: 'addr:a', forPeer: 'addr:c', busy: true, reason: 'table-full' });
    const gone = busy.indexOf(evictions[0]!.sessionId);
    expect(gone).toBeGreaterThanOrEqual(0);
    // Ended cleanly: its stream ends, its server connection is gone, later requests are 404; nobody else is touched.
    expect(await streams[gone]!.untilEnd()).toBe(true);
    expect(await ping(s.url, busy[gone]!, anyone)).toBe(404);
    for (const id of [busy[1 - gone]!, idle, newcomer]) expect(await ping(s.url, id, anyone)).toBe(200);
    expect(s.server.stats().connections).toBe(3);
  });

  test('a peer at its share with every session busy gets a 503; others still get sessions', async () => {
    const { served: s } = await serveWithLog({ maxSessions: 8, maxSessionsPerPeer: 2 });
    for (let i = 0; i < 2; i += 1) expect((await openLegacyStream(s.base, from('a'), track)).status).toBe(200);
    const refused = await postJson(s.url, initializeMessage(1), from('a'));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/share of 2 sessions, all in use/);
    expect(await ping(s.url, await session(s.url, from('b')), anyone)).toBe(200);
  });
});

describe('sloppy clients', () => {
  test('sessions abandoned by one client in ten are evicted, never making the rest wait for sessionIdleTimeoutMs', async () => {
    const served = await serve({}, { maxSessions: 10 });
    let refused = 0;
    // Bounded: 120 clients, one after another, all from 127.0.0.1.
    for (let i = 0; i < 120; i += 1) {
      const response = await postJson(served.url, initializeMessage(1));
      await response.body?.cancel();
      if (response.status !== 200) {
        refused += 1;
        continue;
      }
      const id = response.headers.get('mcp-session-id')!;
      if (i % 10 === 0) continue; // abandoned without a DELETE
      expect(await ping(served.url, id, anyone)).toBe(200);
      const del = await fetch(served.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
      expect(del.status).toBe(204);
    }
    expect(refused).toBe(0);
    expect(served.http.handler.stats().sessions).toBeLessThanOrEqual(5);
    await eventually(() => served.server.stats().connections === served.http.handler.stats().sessions);
  });

  test('maxSessionsPerPeer is validated', async () => {
    await expect(serve({}, { maxSessions: 4, maxSessionsPerPeer: 5 })).rejects.toThrow(/maxSessionsPerPeer \(5\) may not exceed maxSessions \(4\)/);
    await expect(serve({}, { maxSessionsPerPeer: 0 })).rejects.toThrow(/maxSessionsPerPeer must be a positive integer/);
  });
});
