/**
 * The priming event (an id with empty data) is a 2025-11-25 feature: a
 * session that negotiated an older revision never gets one, on POST or GET
 * streams, since its clients would read the empty data as a bad message.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { serve, SseReader, type Served } from './helpers.js';

let served: Served | undefined;
const readers: SseReader[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

function post(url: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    },
    body: JSON.stringify(body),
  });
}

function initialize(protocolVersion: string) {
  return { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
}

describe('priming events by negotiated revision', () => {
  test.each(['2025-06-18', '2025-03-26'])('a %s session: POST and GET streams carry no priming event', async (version) => {
    served = await serve();
    const init = await post(served.url, initialize(version));
    expect(init.headers.get('content-type')).toBe('text/event-stream');
    const sessionId = init.headers.get('mcp-session-id')!;
    const initStream = new SseReader(init);
    readers.push(initStream);
    const first = await initStream.next();
    expect(JSON.parse(first.data!)).toMatchObject({ id: 1, result: { protocolVersion: version } });
    const ping = new SseReader(await post(served.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, sessionId));
    readers.push(ping);
    expect(JSON.parse((await ping.next()).data!)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(await ping.untilEnd()).toBe(true);
    const standalone = new SseReader(await fetch(served.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } }));
    readers.push(standalone);
    served.server.notify('notifications/tools/list_changed');
    const event = await standalone.next();
    expect(event.id).toBeDefined();
    expect(JSON.parse(event.data!)).toMatchObject({ method: 'notifications/tools/list_changed' });
  });

  test('a client asking for a revision we do not know gets our newest, 2025-11-25, and so a priming event', async () => {
    served = await serve({}, { retryMs: 700 });
    const init = new SseReader(await post(served.url, initialize('2099-01-01')));
    readers.push(init);
    expect(await init.next()).toEqual({ id: expect.any(String), data: '', retry: 700 });
    expect((await init.nextMessage()).message).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
  });
});
