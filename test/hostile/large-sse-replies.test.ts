/**
 * Finding: a reply over 1 MiB could never be delivered over SSE. The writer
 * took one large event for a slow reader and destroyed the connection before
 * the headers went out; every resumption replayed the same event and was
 * destroyed again; on legacy SSE the session ended. A reader that reads must
 * get a large event (whole, on every kind of stream), and one that does not
 * must still be cut off, by time on the server's clock, in bounded memory.
 */
import { describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { closedAfterEach, eventually, initializeMessage, openSession, postJson, SseReader, virtualClock, type Served } from '../http/helpers.js';
import { expectCutOffAfterStall, pausedReader, warningsLogger } from '../http/stalled-reader.js';

const BIG = 3 * 1024 * 1024;

const { serve, track } = closedAfterEach();
let served: Served | undefined;

function sseHeaders(sessionId?: string, lastEventId?: string): Record<string, string> {
  return {
    accept: 'application/json, text/event-stream',
    ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }),
    ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
  };
}

function postSse(url: string, body: unknown, sessionId: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...sseHeaders(sessionId) }, body: JSON.stringify(body) });
}

function call(id: number, name: string) {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name } };
}

function textOf(message: Record<string, unknown>): string {
  return ((message.result as { content: { text: string }[] }).content[0]!).text;
}

let openGate: () => void = () => {};

function bigRegistry(): Registry {
  const gate = new Promise<void>((resolve) => (openGate = resolve));
  return new Registry()
    .registerTool({ name: 'big', handler: () => 'x'.repeat(BIG) })
    .registerTool({
      name: 'gated_burst',
      handler: async (_args, ctx) => {
        await gate;
        ctx.log('info', 'a'.repeat(BIG));
        ctx.log('info', 'b'.repeat(BIG));
        return 'c'.repeat(BIG);
      },
    });
}

describe('a reply over 1 MiB reaches a client that reads', () => {
  test('over a POST SSE stream (default maxStreamBufferBytes, 1 MiB)', async () => {
    served = await serve({ registry: bigRegistry() });
    const sessionId = await openSession(served.url);
    const response = await postSse(served.url, call(2, 'big'), sessionId);
    expect(response.status).toBe(200);
    const reader = track(new SseReader(response));
    const reply = await reader.nextMessage();
    expect(reply.message.id).toBe(2);
    expect(textOf(reply.message)).toBe('x'.repeat(BIG));
    expect(await reader.untilEnd()).toBe(true);
    expect(served.http.handler.stats().sessions).toBe(1);
  });

  test('over the standalone GET stream, three in a burst', async () => {
    served = await serve({ registry: bigRegistry() });
    const sessionId = await openSession(served.url);
    const reader = track(new SseReader(await fetch(served.url, { headers: sseHeaders(sessionId) })));
    expect((await reader.next()).data).toBe('');
    for (const c of ['a', 'b', 'c']) served.server.notify('notifications/message', { level: 'info', data: c.repeat(BIG) });
    for (const c of ['a', 'b', 'c']) {
      const { message } = await reader.nextMessage();
      expect((message.params as { data: string }).data).toBe(c.repeat(BIG));
    }
    expect(served.http.handler.stats().openStreams).toBe(1);
  });

  test('on resumption: 9 MiB missed on a POST stream is replayed whole after Last-Event-ID, then the stream ends', async () => {
    served = await serve({ registry: bigRegistry() });
    const sessionId = await openSession(served.url);
    const first = new SseReader(await postSse(served.url, call(3, 'gated_burst'), sessionId));
    const priming = await first.next();
    expect(priming.id).toBeDefined();
    await first.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 0);
    openGate();
    await eventually(() => served!.server.stats().inFlight === 0);
    const resumed = track(new SseReader(await fetch(served.url, { headers: sseHeaders(sessionId, priming.id) })));
    const logs = [await resumed.nextMessage(), await resumed.nextMessage()].map(({ message }) => (message.params as { data: string }).data);
    expect(logs).toEqual(['a'.repeat(BIG), 'b'.repeat(BIG)]);
    const reply = await resumed.nextMessage();
    expect(reply.message.id).toBe(3);
    expect(textOf(reply.message)).toBe('c'.repeat(BIG));
    expect(await resumed.untilEnd()).toBe(true);
  });

  test('over legacy SSE, and the session lives on', async () => {
    served = await serve({ registry: bigRegistry() });
    const reader = track(new SseReader(await fetch(`${served.base}/sse`, { headers: { accept: 'text/event-stream' } })));
    const endpoint = `${served.base}${(await reader.next()).data!}`;
    const init = initializeMessage(1);
    for (const message of [
      { ...init, params: { ...init.params, protocolVersion: '2024-11-05' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      call(2, 'big'),
    ]) {
      const posted = await postJson(endpoint, message);
      expect(posted.status).toBe(202);
      await posted.body?.cancel();
    }
    expect((await reader.nextMessage()).message.id).toBe(1);
    const reply = await reader.nextMessage();
    expect(reply.message.id).toBe(2);
    expect(textOf(reply.message)).toBe('x'.repeat(BIG));
    const ping = await postJson(endpoint, { jsonrpc: '2.0', id: 3, method: 'ping' });
    expect(ping.status).toBe(202);
    await ping.body?.cancel();
    expect((await reader.nextMessage()).message).toMatchObject({ id: 3, result: {} });
  });
});

describe('a client that does not read is still cut off, by time, in bounded memory', () => {
  test('large events pile up in the event store, not the stream; streamStallTimeoutMs on the server clock ends it', async () => {
    const clock = virtualClock();
    const { warnings, logger } = warningsLogger();
    served = await serve({ registry: bigRegistry(), scheduler: clock.scheduler, logger }, { streamStallTimeoutMs: 10_000 });
    const sessionId = await openSession(served.url);
    const reader = await pausedReader(served, sseHeaders(sessionId));
    // 24 MiB for a reader that takes nothing: far more than loopback's socket buffers hold.
    for (let i = 0; i < 8; i += 1) {
      served.server.notify('notifications/message', { level: 'info', data: String(i).repeat(BIG) });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await eventually(() => served!.http.handler.stats().streamBufferedBytes > 1024 * 1024);
    const stats = served.http.handler.stats();
    expect(stats.openStreams).toBe(1);
    // The bound (1 MiB) plus one event, at most: the rest waits in the (bounded) event store.
    expect(stats.streamBufferedBytes).toBeLessThanOrEqual(1024 * 1024 + BIG + 64 * 1024);
    await expectCutOffAfterStall(served, clock, 10_000, warnings);
    reader.destroy();
  });
});
