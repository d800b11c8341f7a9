/**
 * Issue 17, part 2: the HTTP session table counted a signed-in caller by its
 * address. Two principals behind one address (a NAT, a proxy without
 * `trustedProxyHeader`: here both on 127.0.0.1) were one owner, so with the
 * table full, principal A filling sessions evicted principal B's idle session
 * (B then got 404) and B's new sessions got 503, while the in-flight shares
 * and parking already counted per principal. The table counts by the same
 * owner key now: each principal holds its own share, A at its share makes
 * room only from its own sessions, and B, holding fewer than A on a full
 * table, takes the place of one of A's. Both transports, either way round:
 * Streamable HTTP sessions (idle unless a GET stream holds them) and legacy
 * SSE sessions (busy while their stream is open).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { principalKey } from '../../lib/index.js';
import type { SseReader } from '../http/helpers.js';
import { evictionLog, initializeOnly, openLegacyStream, openStream, ping, session, type ClientHeaders } from '../http/session-clients.js';
import { bearer, protectedHttp, type ProtectedHttp } from './protected-http.js';

let served: ProtectedHttp | undefined;
const readers: SseReader[] = [];
const track = (reader: SseReader): SseReader => {
  readers.push(reader);
  return reader;
};
afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

type Kind = 'streamable' | 'legacy';

/** A session of `kind` as its principal uses it: proves it is live by a ping answered on it. */
interface Held {
  readonly kind: Kind;
  readonly id: string;
  /** Legacy: the stream the ping's reply comes on. */
  readonly legacy?: { readonly reader: SseReader; readonly endpoint: string };
}

/**
 * Opens a session of `kind`, or answers the refusal's status. `busy`: a
 * Streamable HTTP session gets a GET stream (a legacy one is busy anyway).
 */
async function open(p: ProtectedHttp, kind: Kind, who: ClientHeaders, busy: boolean): Promise<Held | number> {
  if (kind === 'legacy') {
    const { status, stream } = await openLegacyStream(p.base, who, track);
    return stream === undefined ? status : { kind, id: stream.sessionId, legacy: stream };
  }
  if (busy) {
    const init = await initializeOnly(p.url, who);
    if (init.status !== 200) return init.status;
    await openStream(p.url, init.sessionId!, who, track);
    return { kind, id: init.sessionId! };
  }
  return { kind, id: await session(p.url, who) };
}

/** Whether the session still answers its principal: a ping's reply (legacy: 202, then the reply on its stream). */
async function answers(p: ProtectedHttp, held: Held, who: ClientHeaders): Promise<boolean> {
  if (held.legacy === undefined) return (await ping(p.url, held.id, who)) === 200;
  const response = await fetch(`${p.base}${held.legacy.endpoint}`, {
    method: 'POST',
    headers: { ...who, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
  });
  await response.body?.cancel();
  if (response.status !== 202) return false;
  const { message } = await held.legacy.reader.nextMessage();
  return message.id === 7 && 'result' in message;
}

const cases: readonly [Kind, Kind][] = [
  ['legacy', 'streamable'], // the issue: busy legacy SSE sessions against another principal's Streamable HTTP session
  ['streamable', 'streamable'],
  ['legacy', 'legacy'],
  ['streamable', 'legacy'],
];

describe.each(cases)('principal A filling %s sessions, principal B holding %s ones, both from 127.0.0.1', (aKind, bKind) => {
  test("A is held to its own share and never takes B's session; B's new session takes the place of one of A's", async () => {
    const { logger, evictions } = evictionLog();
    // A table of 3, a share of 2: A at its share fills the table beside B's one.
    served = await protectedHttp({ server: { logger }, http: { maxSessions: 3, maxSessionsPerPeer: 2 } });
    const alice = bearer(await served.token());
    const bob = bearer(await served.token({ sub: 'bob' }));
    const owner = (subject: string) => `principal:${principalKey(served!.as.issuer, subject, 'app')}`;

    const bobFirst = await open(served, bKind, bob, false);
    if (typeof bobFirst === 'number') throw new Error(`B's first session answered ${bobFirst}`);
    const refusals: number[] = [];
    // Bounded: one attempt past the share.
    for (let i = 0; i < 3; i += 1) {
      const opened = await open(served, aKind, alice, true);
      if (typeof opened === 'number') refusals.push(opened);
    }
    // B's session is untouched; A got its share of 2 (the table is full) and its third was refused: all of its own are busy.
    expect(evictions).toEqual([]);
    expect(await answers(served, bobFirst, bob)).toBe(true);
    expect(refusals).toEqual([503]);
    expect(served.http.handler.stats().sessions).toBe(3);

    // B holds 1 of its share of 2, A holds the most: one of A's sessions, busy as it is, makes room.
    const bobSecond = await open(served, bKind, bob, false);
    expect(typeof bobSecond).not.toBe('number');
    expect(evictions).toEqual([expect.objectContaining({ peer: owner('alice'), forPeer: owner('bob'), reason: 'table-full', busy: true })]);
    expect(await answers(served, bobSecond as Held, bob)).toBe(true);
    expect(await answers(served, bobFirst, bob)).toBe(true);
    // The evicted session's connection to the server is gone with it.
    expect(served.server.stats().connections).toBe(3);
  });
});
