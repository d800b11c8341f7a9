import { afterEach, describe, expect, test } from 'vitest';
import { initializeMessage, openSession, postJson, serve, SseReader, virtualClock, eventually, type Served } from './helpers.js';
import { InMemoryEventStore } from '../../transports/index.js';
import { expectCutOffAfterStall, pausedReader, warningsLogger } from './stalled-reader.js';

let served: Served | undefined;
const readers: SseReader[] = [];

afterEach(async () => {
  for (const reader of readers.splice(0)) await reader.cancel();
  await served?.close();
  served = undefined;
});

function listen(url: string, sessionId: string): Promise<Response> {
  return fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId } });
}

async function ping(url: string, sessionId: string): Promise<number> {
  const response = await postJson(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': sessionId });
  await response.body?.cancel();
  return response.status;
}

describe('bounded state of the HTTP transport', () => {
  test('an idle session expires after sessionIdleTimeoutMs on the server scheduler; a request restarts the clock', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { sessionIdleTimeoutMs: 10_000 });
    const sessionId = await openSession(served.url);
    clock.advance(9_999);
    expect(served.http.handler.stats().sessions).toBe(1);
    expect(await ping(served.url, sessionId)).toBe(200);
    clock.advance(9_999);
    expect(served.http.handler.stats().sessions).toBe(1);
    clock.advance(1);
    expect(served.http.handler.stats().sessions).toBe(0);
    expect(served.server.stats().connections).toBe(0);
    expect(await ping(served.url, sessionId)).toBe(404);
  });

  test('an open stream holds its session; the idle clock starts when the last stream closes', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { sessionIdleTimeoutMs: 10_000, keepAliveMs: 60_000 });
    const sessionId = await openSession(served.url);
    const reader = new SseReader(await listen(served.url, sessionId));
    readers.push(reader);
    await reader.next();
    clock.advance(50_000);
    expect(served.http.handler.stats().sessions).toBe(1);
    await reader.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 0);
    clock.advance(9_999);
    expect(served.http.handler.stats().sessions).toBe(1);
    clock.advance(1);
    expect(served.http.handler.stats().sessions).toBe(0);
  });

  test('maxSessions: a full table gives up an idle session for a new one; a 503 with a JSON-RPC error only when every one is busy', async () => {
    served = await serve({}, { maxSessions: 2, maxSessionsPerPeer: 2 });
    const a = await openSession(served.url);
    const b = await openSession(served.url);
    // Both busy (an open stream each): nothing of this peer's may go for its own new session.
    const streams = [a, b].map(async (id) => {
      const reader = new SseReader(await listen(served!.url, id));
      readers.push(reader);
      await reader.next();
      return reader;
    });
    const [, streamB] = await Promise.all(streams);
    const full = await postJson(served.url, initializeMessage(1));
    expect(full.status).toBe(503);
    const body = (await full.json()) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(body.error.message).toMatch(/maximum of 2 sessions/);
    const legacy = await fetch(`${served.base}/sse`);
    expect(legacy.status).toBe(503);
    await legacy.body?.cancel();
    expect(served.server.stats().connections).toBe(2);
    // b is idle once its stream is gone: the next initialize takes its place.
    await streamB!.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 1);
    const room = await postJson(served.url, initializeMessage(1));
    expect(room.status).toBe(200);
    await room.json();
    expect(await ping(served.url, b)).toBe(404);
    expect(await ping(served.url, a)).toBe(200);
    expect(served.server.stats().connections).toBe(2);
  });

  test('every open stream gets a keep-alive comment each keepAliveMs on the server scheduler', async () => {
    const clock = virtualClock();
    served = await serve({ scheduler: clock.scheduler }, { keepAliveMs: 15_000 });
    const sessionId = await openSession(served.url);
    const reader = new SseReader(await listen(served.url, sessionId));
    readers.push(reader);
    await reader.next();
    clock.advance(15_000);
    expect(await reader.next()).toEqual({ comment: 'keep-alive' });
    clock.advance(15_000);
    expect(await reader.next()).toEqual({ comment: 'keep-alive' });
  });

  test('a reader that stops reading is cut off once its unread bytes stay over maxStreamBufferBytes for streamStallTimeoutMs', async () => {
    const clock = virtualClock();
    const { warnings, logger } = warningsLogger();
    const maxStreamBufferBytes = 64 * 1024;
    served = await serve({ logger, scheduler: clock.scheduler }, { maxStreamBufferBytes, streamStallTimeoutMs: 5_000 });
    const sessionId = await openSession(served.url);
    const reader = await pausedReader(served, { accept: 'text/event-stream', 'mcp-session-id': sessionId });
    await eventually(() => served!.http.handler.stats().openStreams === 1);
    const payload = 'x'.repeat(16 * 1024);
    // Bounded: far more than the kernel's socket buffers take (a few MiB on loopback), well short of unbounded.
    for (let pushed = 0; pushed < 4096; pushed += 2) {
      for (let i = 0; i < 2; i += 1) served.server.notify('notifications/message', { level: 'info', data: payload });
      await new Promise((resolve) => setImmediate(resolve));
    }
    // However much came, what waits for this reader stays bounded (the rest is in the event store), and no time has passed.
    const stats = served.http.handler.stats();
    expect(stats.openStreams).toBe(1);
    expect(stats.streamBufferedBytes).toBeGreaterThan(maxStreamBufferBytes);
    expect(stats.streamBufferedBytes).toBeLessThanOrEqual(3 * maxStreamBufferBytes);
    // Cut off at the first check that finds no byte taken since the one before: one or two stall periods in.
    // The session itself survives: the messages it missed are in the event store for a resumption.
    await expectCutOffAfterStall(served, clock, 5_000, warnings);
    reader.destroy();
  });

  test('a reader that keeps reading is not cut off by the same traffic', async () => {
    served = await serve({}, { maxStreamBufferBytes: 64 * 1024 });
    const sessionId = await openSession(served.url);
    const reader = new SseReader(await listen(served.url, sessionId));
    readers.push(reader);
    await reader.next();
    const payload = 'x'.repeat(16 * 1024);
    const total = 1024;
    let received = 0;
    const reading = (async () => {
      while (received < total) {
        await reader.nextMessage();
        received += 1;
      }
    })();
    for (let pushed = 0; pushed < total; pushed += 2) {
      for (let i = 0; i < 2; i += 1) served.server.notify('notifications/message', { level: 'info', data: payload });
      await new Promise((resolve) => setImmediate(resolve));
    }
    await reading;
    expect(received).toBe(total);
    expect(served.http.handler.stats().openStreams).toBe(1);
  });
});

describe('InMemoryEventStore', () => {
  test('replays only the events after the cursor on the cursor\'s own stream', () => {
    const store = new InMemoryEventStore();
    const prime = store.append('s', 'g1', null);
    const a = store.append('s', 'g1', 'a');
    store.append('s', 'p2', 'other stream');
    const b = store.append('s', 'g1', 'b');
    expect(store.replayAfter('s', prime)).toEqual({ streamId: 'g1', events: [{ id: a, data: 'a' }, { id: b, data: 'b' }] });
    expect(store.replayAfter('s', a)).toEqual({ streamId: 'g1', events: [{ id: b, data: 'b' }] });
    expect(store.replayAfter('other-session', a)).toBeUndefined();
    expect(new Set([prime, a, b]).size).toBe(3);
  });

  test('is bounded per session, in total and in bytes; the oldest go first', () => {
    const store = new InMemoryEventStore({ maxEventsPerSession: 3, maxEvents: 5, maxBytes: 2000 });
    const first = store.append('s1', 'g1', 'one');
    for (const data of ['two', 'three', 'four']) store.append('s1', 'g1', data);
    expect(store.replayAfter('s1', first)).toBeUndefined();
    expect(store.size().events).toBe(3);
    const other = store.append('s2', 'g1', 'x');
    store.append('s2', 'g1', 'y');
    store.append('s2', 'g1', 'z');
    expect(store.size().events).toBe(5);
    expect(store.replayAfter('s2', other)?.events.map((e) => e.data)).toEqual(['y', 'z']);
    store.append('s3', 'g1', 'w'.repeat(600));
    expect(store.size().events).toBeLessThan(5);
    expect(store.size().bytes).toBeLessThanOrEqual(2000);
    store.deleteSession('s3');
    store.deleteSession('s2');
    store.deleteSession('s1');
    expect(store.size()).toEqual({ events: 0, bytes: 0, sessions: 0 });
  });
});
