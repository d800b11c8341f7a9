import { afterEach, describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { eventually, initializeMessage, openSession, postJson, serve, SseReader, type Served } from './helpers.js';

let served: Served | undefined;
const readers: SseReader[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

async function openLegacy(s: Served): Promise<{ reader: SseReader; endpoint: string; sessionId: string }> {
  const response = await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const reader = new SseReader(response);
  readers.push(reader);
  const first = await reader.next();
  expect(first.event).toBe('endpoint');
  const endpoint = first.data!;
  const sessionId = new URL(endpoint, s.base).searchParams.get('sessionId')!;
  return { reader, endpoint, sessionId };
}

describe('legacy HTTP+SSE (2024-11-05)', () => {
  test('GET /sse announces /messages?sessionId=<minted>; a POST there is 202 and its reply comes as a message event', async () => {
    served = await serve();
    const { reader, endpoint, sessionId } = await openLegacy(served);
    expect(endpoint).toMatch(/^\/messages\?sessionId=sse-[A-Za-z0-9_-]{24}$/);
    expect(served.server.stats().connections).toBe(1);
    const post = await postJson(`${served.base}${endpoint}`, { ...initializeMessage(1), params: { ...initializeMessage(1).params, protocolVersion: '2024-11-05' } });
    expect(post.status).toBe(202);
    await post.body?.cancel();
    const frame = await reader.next();
    expect(frame.event).toBe('message');
    expect(JSON.parse(frame.data!)).toMatchObject({ id: 1, result: { protocolVersion: '2024-11-05' } });
    // The legacy id is not a streamable session, and the other way round.
    const cross = await postJson(served.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-session-id': sessionId });
    expect(cross.status).toBe(404);
    await cross.body?.cancel();
    const streamableId = await openSession(served.url);
    const back = await postJson(`${served.base}/messages?sessionId=${streamableId}`, { jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(back.status).toBe(404);
    await back.body?.cancel();
  });

  test('a POST naming no live session is 404; bad JSON is 400 -32700; other methods are 405', async () => {
    served = await serve();
    const none = await postJson(`${served.base}/messages`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(none.status).toBe(404);
    await none.body?.cancel();
    const unknown = await postJson(`${served.base}/messages?sessionId=sse-forged`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ id: null, error: { code: -32000 } });
    const { endpoint } = await openLegacy(served);
    const bad = await postJson(`${served.base}${endpoint}`, 'not json');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
    const getMessages = await fetch(`${served.base}/messages`);
    expect(getMessages.status).toBe(405);
    await getMessages.body?.cancel();
    const postSse = await fetch(`${served.base}/sse`, { method: 'POST' });
    expect(postSse.status).toBe(405);
    await postSse.body?.cancel();
  });

  test('the stream is the session: closing it ends the connection (parked calls dropped), and its id is then 404', async () => {
    const registry = new Registry();
    registry.registerTool({ name: 'guarded', handler: () => 'ran' });
    served = await serve({ registry, authorizer: () => ({ ask: 'ok?' }), authorizerSource: 'configured' });
    const { reader, endpoint } = await openLegacy(served);
    const url = `${served.base}${endpoint}`;
    await (await postJson(url, initializeMessage(1, { elicitation: {} }))).body?.cancel();
    await reader.next();
    await (await postJson(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'guarded' } })).body?.cancel();
    const ask = await reader.next();
    expect(JSON.parse(ask.data!)).toMatchObject({ method: 'elicitation/create' });
    expect(served.server.stats().parked).toBe(1);
    await reader.cancel();
    await eventually(() => served!.server.stats().connections === 0);
    expect(served.server.stats().parked).toBe(0);
    expect(served.http.handler.stats().sessions).toBe(0);
    const late = await postJson(url, { jsonrpc: '2.0', id: JSON.parse(ask.data!).id, result: { action: 'accept', content: { approve: true } } });
    expect(late.status).toBe(404);
    await late.body?.cancel();
  });

  test('legacySse: false turns the legacy endpoints off', async () => {
    served = await serve({}, { legacySse: false });
    const sse = await fetch(`${served.base}/sse`);
    expect(sse.status).toBe(404);
    await sse.body?.cancel();
  });
});
