/**
 * What is bound to the principal, over real HTTP on 127.0.0.1 with tokens
 * of the loopback authorization server: a Streamable HTTP session and a
 * legacy SSE stream belong to the principal that opened them (anyone else:
 * 404, as an unknown session; a refreshed token of the same user and client
 * keeps the session); the fetch handler behaves the same through the shared
 * router; a parked approval is answered only by its owner (another
 * principal's answer is ignored, on its own session, or a 404 on the
 * owner's); and the fairness rules count per principal, not per address:
 * one principal flooding a slow tool from several sessions holds one share,
 * and another principal on the same address still runs (virtual clock).
 */
import { afterEach, describe, expect, test } from 'vitest';
import { map, timer, type SchedulerLike } from 'rxjs';
import { allowlist, createServer, jwtBearer, Registry } from '../../lib/index.js';
import { createFetchHandler } from '../../transports/index.js';
import { eventually, SseReader } from '../http/helpers.js';
import { epochClock, seconds, startFakeAs, T0 } from './fake-as.js';
import { bearer, challengeParams, ENDPOINT_SCOPE, protectedHttp, protectedRegistry, RESOURCE, type ProtectedHttp } from './protected-http.js';

const init = (capabilities: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
});
const call = (id: number | string, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name } });

let served: ProtectedHttp | undefined;
const readers: SseReader[] = [];
let release: (() => void) | undefined;
afterEach(async () => {
  release?.();
  release = undefined;
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

function post(url: string, body: unknown, headers: Record<string, string> = {}, accept = 'application/json'): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...headers }, body: JSON.stringify(body) });
}

async function openSession(p: ProtectedHttp, token: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const response = await post(p.url, init(capabilities), bearer(token));
  expect(response.status).toBe(200);
  await response.json();
  const id = response.headers.get('mcp-session-id')!;
  await (await post(p.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...bearer(token), 'mcp-session-id': id })).body?.cancel();
  return id;
}

const resultText = async (response: Response) => ((await response.json()) as { result: { content: { text: string }[] } }).result.content[0]!.text;

describe('sessions belong to their principal', () => {
  test('another principal naming a Streamable HTTP session gets 404 for POST, GET and DELETE; the owner keeps it, also with a refreshed token', async () => {
    served = await protectedHttp();
    const alice = await served.token();
    const bob = await served.token({ sub: 'bob' });
    const aliceOtherClient = await served.token({ clientId: 'other-app' });
    const session = await openSession(served, alice);
    const unknown = await post(served.url, call(1, 'whoami'), { ...bearer(alice), 'mcp-session-id': 'no-such-session' });
    expect(unknown.status).toBe(404);
    const unknownBody = await unknown.json();
    for (const thief of [bob, aliceOtherClient]) {
      const hijack = await post(served.url, call(2, 'whoami'), { ...bearer(thief), 'mcp-session-id': session });
      expect(hijack.status).toBe(404);
      expect(await hijack.json()).toEqual(unknownBody);
      expect((await fetch(served.url, { headers: { ...bearer(thief), accept: 'text/event-stream', 'mcp-session-id': session } })).status).toBe(404);
      expect((await fetch(served.url, { method: 'DELETE', headers: { ...bearer(thief), 'mcp-session-id': session } })).status).toBe(404);
    }
    expect(served.http.handler.stats().sessions).toBe(1);
    served.clock.advance(10_000);
    const refreshed = await served.token({ scope: `${ENDPOINT_SCOPE} notes:read`, expiresIn: 7200 });
    expect(refreshed).not.toBe(alice);
    const mine = await post(served.url, call(3, 'whoami'), { ...bearer(refreshed), 'mcp-session-id': session });
    expect(mine.status).toBe(200);
    expect(await resultText(mine)).toBe(`alice [${ENDPOINT_SCOPE} notes:read]`);
  });

  test('legacy SSE: GET /sse needs a token; a POST by another principal is 404, without a token 401, with a missing scope 403', async () => {
    served = await protectedHttp();
    const alice = await served.token();
    const bob = await served.token({ sub: 'bob' });
    const anonymous = await fetch(`${served.base}/sse`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    expect(challengeParams(anonymous.headers.get('www-authenticate')).scope).toBe(ENDPOINT_SCOPE);
    const stream = await fetch(`${served.base}/sse`, { headers: { ...bearer(alice), accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream);
    readers.push(reader);
    const endpoint = `${served.base}${(await reader.next()).data!}`;
    expect((await post(endpoint, init(), bearer(bob))).status).toBe(404);
    expect((await post(endpoint, init())).status).toBe(401);
    const ok = await post(endpoint, init(), bearer(alice));
    expect(ok.status).toBe(202);
    expect((await reader.nextMessage()).message).toMatchObject({ id: 0, result: { protocolVersion: '2025-11-25' } });
    await (await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, bearer(alice))).body?.cancel();
    const stepUp = await post(endpoint, call(1, 'delete_note'), bearer(alice));
    expect(stepUp.status).toBe(403);
    expect(challengeParams(stepUp.headers.get('www-authenticate'))).toMatchObject({ error: 'insufficient_scope', scope: `${ENDPOINT_SCOPE} notes:write` });
    expect((await post(endpoint, call(2, 'whoami'), bearer(alice))).status).toBe(202);
    expect((await reader.nextMessage()).message).toMatchObject({ id: 2, result: { content: [{ text: `alice [${ENDPOINT_SCOPE}]` }] } });
  });

  test('the fetch handler answers the same: metadata, challenge, the owner served, a thief 404', async () => {
    const as = await startFakeAs();
    const clock = epochClock();
    const server = createServer({ registry: protectedRegistry(), scheduler: clock.scheduler });
    const handler = createFetchHandler(server, {
      authenticator: jwtBearer({ issuer: as.issuer, audiences: [RESOURCE], jwksUri: as.jwksUri, scheduler: clock.scheduler }),
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      requiredScopes: [ENDPOINT_SCOPE],
    });
    try {
      const token = (sub: string) =>
        as.sign({ iss: as.issuer, sub, client_id: 'app', aud: RESOURCE, scope: ENDPOINT_SCOPE, exp: seconds(T0) + 60 });
      const request = (body: unknown, headers: Record<string, string> = {}) =>
        handler(new Request('http://localhost/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) }));
      const metadata = await handler(new Request('http://localhost/.well-known/oauth-protected-resource/mcp'));
      expect(await metadata.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [as.issuer] });
      const challenged = await request(init());
      expect(challenged.status).toBe(401);
      expect(challengeParams(challenged.headers.get('www-authenticate')).resource_metadata).toBe('https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
      const opened = await request(init(), bearer(await token('alice')));
      expect(opened.status).toBe(200);
      const session = opened.headers.get('mcp-session-id')!;
      await opened.json();
      expect((await request(call(1, 'whoami'), { ...bearer(await token('bob')), 'mcp-session-id': session })).status).toBe(404);
      const mine = await request(call(2, 'whoami'), { ...bearer(await token('alice')), 'mcp-session-id': session });
      expect(await resultText(mine)).toBe(`alice [${ENDPOINT_SCOPE}]`);
      clock.advance(60_000);
      expect((await request(call(3, 'whoami'), { ...bearer(await token('alice')), 'mcp-session-id': session })).status).toBe(401);
    } finally {
      handler.close();
      server.close();
      await as.close();
    }
  });
});

describe('parked approvals belong to their principal', () => {
  test("an approval answered by another principal is ignored: on its own session it closes nothing, on the owner's session it is a 404", async () => {
    let ran = 0;
    served = await protectedHttp({
      registry: () => protectedRegistry().registerTool({ name: 'wipe', handler: () => `wiped ${(ran += 1)}` }, { replace: true }),
      server: { authorizer: allowlist(['whoami', 'delete_note'], { ask: { wipe: 'Wipe everything?' } }), authorizerSource: 'configured' },
    });
    const alice = await served.token();
    const bob = await served.token({ sub: 'bob' });
    const aliceSession = await openSession(served, alice, { elicitation: {} });
    const bobSession = await openSession(served, bob, { elicitation: {} });
    const stream = await post(served.url, call(7, 'wipe'), { ...bearer(alice), 'mcp-session-id': aliceSession }, 'application/json, text/event-stream');
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream);
    readers.push(reader);
    const ask = (await reader.nextMessage()).message as { id: string; method: string };
    expect(ask.method).toBe('elicitation/create');
    const approval = { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { approve: true } } };
    // Bob, on his own session: accepted as a message, but it answers nothing of his.
    expect((await post(served.url, approval, { ...bearer(bob), 'mcp-session-id': bobSession })).status).toBe(202);
    // Bob, on Alice's session: there is no such session for him.
    expect((await post(served.url, approval, { ...bearer(bob), 'mcp-session-id': aliceSession })).status).toBe(404);
    expect(ran).toBe(0);
    // The parked call was still open: Alice's own answer is the one that closes it.
    const decline = await post(served.url, { jsonrpc: '2.0', id: ask.id, result: { action: 'decline' } }, { ...bearer(alice), 'mcp-session-id': aliceSession });
    expect(decline.status).toBe(202);
    const reply = (await reader.nextMessage()).message as { id: number; result: { isError: boolean; content: { text: string }[] } };
    expect(reply.id).toBe(7);
    expect(JSON.parse(reply.result.content[0]!.text)).toMatchObject({ tool: 'wipe', decision: 'ask', detail: 'declined' });
    expect(ran).toBe(0);
  });
});

describe('fairness per principal', () => {
  const slowRegistry = (scheduler: SchedulerLike) =>
    new Registry().registerTool({ name: 'slow', handler: (_args, ctx) => timer(1000, scheduler).pipe(map(() => `slow for ${ctx.principal?.subject}`)) });

  test('one principal flooding from three sessions holds one share; another principal on the same address still runs', async () => {
    // maxInFlight 6: 3 per connection, 2 per peer (here: per principal).
    served = await protectedHttp({ registry: slowRegistry, server: { maxInFlight: 6 } });
    const clock = served.clock;
    release = () => clock.advance(1000);
    const alice = await served.token();
    const bob = await served.token({ sub: 'bob' });
    const aliceSessions = [await openSession(served, alice), await openSession(served, alice), await openSession(served, alice)];
    const bobSession = await openSession(served, bob);
    let answered = 0;
    const send = (token: string, session: string, id: number) =>
      post(served!.url, call(id, 'slow'), { ...bearer(token), 'mcp-session-id': session }).then(async (response) => {
        answered += 1;
        return resultText(response);
      });
    const flood = aliceSessions.flatMap((session, s) => [send(alice, session, s * 10), send(alice, session, s * 10 + 1)]);
    // Alice runs her share of 2; her other 4 are answered busy at once.
    await eventually(() => answered === 4 && served!.server.stats().inFlight === 2, 20_000);
    const bobCall = send(bob, bobSession, 99);
    await eventually(() => served!.server.stats().inFlight === 3, 20_000);
    expect(answered).toBe(4);
    clock.advance(1000);
    const results = await Promise.all(flood);
    expect(results.filter((text) => text === 'slow for alice')).toHaveLength(2);
    expect(results.filter((text) => text === 'Error: server_busy')).toHaveLength(4);
    expect(await bobCall).toBe('slow for bob');
  });
});
