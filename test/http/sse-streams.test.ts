import { describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { closedAfterEach, eventually, initializeMessage, openSession, SseReader, type Served } from './helpers.js';

const { serve, track } = closedAfterEach();
let served: Served | undefined;

function postSse(url: string, body: unknown, sessionId?: string): Promise<Response> {
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

function listen(url: string, sessionId: string, lastEventId?: string): Promise<Response> {
  return fetch(url, {
    headers: {
      accept: 'text/event-stream',
      'mcp-session-id': sessionId,
      ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
    },
  });
}

function askRegistry(): Registry {
  const registry = new Registry();
  registry.registerTool({ name: 'guarded', handler: () => 'ran' });
  return registry;
}

describe('SSE streams of streamable HTTP', () => {
  test('a POST stream opens with a priming event (id, empty data, retry), carries the reply, then ends', async () => {
    served = await serve({}, { retryMs: 2500 });
    const response = await postSse(served.url, initializeMessage(1));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toMatch(/^mcp-/);
    const reader = track(new SseReader(response));
    const priming = await reader.next();
    expect(priming).toEqual({ id: expect.any(String), data: '', retry: 2500 });
    const reply = await reader.next();
    expect(reply.id).toBeDefined();
    expect(reply.id).not.toBe(priming.id);
    expect(JSON.parse(reply.data!)).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    expect(await reader.untilEnd()).toBe(true);
  });

  test.each([
    ['a synchronous', () => ({ ask: 'Run guarded?' })],
    ['an asynchronous', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { ask: 'Run guarded?' };
    }],
  ])('with %s authorizer, the elicitation for a parked call goes on the call\'s own stream, before its reply; the answer POST is 202', async (_kind, authorizer) => {
    served = await serve({ registry: askRegistry(), authorizer, authorizerSource: 'configured' });
    const sessionId = await openSession(served.url, { elicitation: {} });
    const standalone = track(new SseReader(await listen(served.url, sessionId)));
    expect((await standalone.next()).data).toBe('');
    const call = track(new SseReader(await postSse(served.url, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'guarded' } }, sessionId)));
    expect((await call.next()).data).toBe('');
    const ask = await call.nextMessage();
    expect(ask.message).toMatchObject({ method: 'elicitation/create', params: { message: 'Run guarded?' } });
    const answer = await postSse(served.url, { jsonrpc: '2.0', id: ask.message.id, result: { action: 'accept', content: { approve: true } } }, sessionId);
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe('');
    const reply = await call.nextMessage();
    expect(reply.message).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'ran' }] } });
    expect(await call.untilEnd()).toBe(true);
    // Nothing of the call leaked onto the standalone stream: the next thing there is a later broadcast.
    served.server.notify('notifications/tools/list_changed');
    expect((await standalone.nextMessage()).message.method).toBe('notifications/tools/list_changed');
  });

  test('a JSON-mode call elicits on the standalone GET stream instead', async () => {
    served = await serve({ registry: askRegistry(), authorizer: () => ({ ask: 'Run guarded?' }), authorizerSource: 'configured' });
    const sessionId = await openSession(served.url, { elicitation: {} });
    const standalone = track(new SseReader(await listen(served.url, sessionId)));
    const call = fetch(served.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'guarded' } }),
    });
    const ask = await standalone.nextMessage();
    expect(ask.message.method).toBe('elicitation/create');
    const answer = await postSse(served.url, { jsonrpc: '2.0', id: ask.message.id, result: { action: 'decline' } }, sessionId);
    expect(answer.status).toBe(202);
    const reply = (await (await call).json()) as { id: number; result: { isError: boolean; content: { text: string }[] } };
    expect(reply.id).toBe(6);
    expect(reply.result.isError).toBe(true);
    expect(JSON.parse(reply.result.content[0]!.text)).toMatchObject({ decision: 'ask', detail: 'declined' });
  });

  test('broadcasts sent while no GET stream is open wait for one, in order', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    served.server.notify('notifications/message', { level: 'info', data: 'one' });
    served.server.notify('notifications/message', { level: 'info', data: 'two' });
    const reader = track(new SseReader(await listen(served.url, sessionId)));
    expect((await reader.nextMessage()).message.params).toMatchObject({ data: 'one' });
    expect((await reader.nextMessage()).message.params).toMatchObject({ data: 'two' });
  });

  test('each message goes on one stream only: the newest of two GET streams', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    const older = track(new SseReader(await listen(served.url, sessionId)));
    await older.next();
    const newer = track(new SseReader(await listen(served.url, sessionId)));
    await newer.next();
    served.server.notify('notifications/message', { level: 'info', data: 'x' });
    expect((await newer.nextMessage()).message.params).toMatchObject({ data: 'x' });
    await newer.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 1);
    served.server.notify('notifications/message', { level: 'info', data: 'y' });
    // The older stream's next message is y: it never saw x.
    expect((await older.nextMessage()).message.params).toMatchObject({ data: 'y' });
  });

  test('GET streams per session are bounded: one more ends the oldest', async () => {
    served = await serve({}, { maxGetStreamsPerSession: 2 });
    const sessionId = await openSession(served.url);
    const streams: SseReader[] = [];
    for (let i = 0; i < 3; i += 1) {
      const reader = track(new SseReader(await listen(served.url, sessionId)));
      await reader.next();
      streams.push(reader);
    }
    expect(await streams[0]!.untilEnd()).toBe(true);
    await eventually(() => served!.http.handler.stats().openStreams === 2);
  });

  test('a dropped GET stream resumes after Last-Event-ID with what it missed, then stays live', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    const first = track(new SseReader(await listen(served.url, sessionId)));
    await first.next();
    served.server.notify('notifications/message', { level: 'info', data: 'a' });
    const seen = await first.nextMessage();
    expect(seen.message.params).toMatchObject({ data: 'a' });
    await first.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 0);
    served.server.notify('notifications/message', { level: 'info', data: 'b' });
    served.server.notify('notifications/message', { level: 'info', data: 'c' });
    const resumed = track(new SseReader(await listen(served.url, sessionId, seen.id)));
    const b = await resumed.nextMessage();
    expect(b.message.params).toMatchObject({ data: 'b' });
    expect((await resumed.nextMessage()).message.params).toMatchObject({ data: 'c' });
    served.server.notify('notifications/message', { level: 'info', data: 'd' });
    expect((await resumed.nextMessage()).message.params).toMatchObject({ data: 'd' });
    // Resuming from the priming cursor of a new stream replays nothing of another stream.
    const other = track(new SseReader(await listen(served.url, sessionId)));
    const priming = await other.next();
    await other.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 1);
    const fromPriming = track(new SseReader(await listen(served.url, sessionId, priming.id)));
    served.server.notify('notifications/message', { level: 'info', data: 'e' });
    expect((await fromPriming.nextMessage()).message.params).toMatchObject({ data: 'e' });
  });

  test('a POST stream dropped before its reply resumes with GET + Last-Event-ID and gets the reply; a finished one is 204', async () => {
    const registry = new Registry();
    let finish!: (value: string) => void;
    registry.registerTool({ name: 'later', handler: () => new Promise<string>((resolve) => (finish = resolve)) });
    served = await serve({ registry });
    const sessionId = await openSession(served.url);
    const call = new SseReader(await postSse(served.url, { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'later' } }, sessionId));
    const priming = await call.next();
    await call.cancel();
    await eventually(() => served!.http.handler.stats().openStreams === 0);
    finish('done');
    await Promise.resolve();
    const resumed = track(new SseReader(await listen(served.url, sessionId, priming.id)));
    const reply = await resumed.nextMessage();
    expect(reply.message).toMatchObject({ id: 11, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(await resumed.untilEnd()).toBe(true);
    const again = await listen(served.url, sessionId, reply.id);
    expect(again.status).toBe(204);
  });

  test('concurrent POST streams on one session each carry their own reply', async () => {
    const registry = new Registry();
    const finishers = new Map<string, (value: string) => void>();
    registry.registerTool({
      name: 'later',
      handler: (args) => new Promise<string>((resolve) => finishers.set(String(args.tag), resolve)),
    });
    served = await serve({ registry });
    const sessionId = await openSession(served.url);
    const call = (id: number, tag: string) =>
      postSse(served!.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'later', arguments: { tag } } }, sessionId);
    const first = track(new SseReader(await call(1, 'a')));
    const second = track(new SseReader(await call(2, 'b')));
    await first.next();
    await second.next();
    expect(served.http.handler.stats().openStreams).toBe(2);
    await eventually(() => finishers.size === 2);
    finishers.get('b')!('B');
    expect((await second.nextMessage()).message).toMatchObject({ id: 2, result: { content: [{ text: 'B' }] } });
    expect(await second.untilEnd()).toBe(true);
    finishers.get('a')!('A');
    expect((await first.nextMessage()).message).toMatchObject({ id: 1, result: { content: [{ text: 'A' }] } });
    expect(await first.untilEnd()).toBe(true);
  });

  test('a reply that cannot be serialised is still answered, as -32603 for its id', async () => {
    const registry = new Registry();
    registry.registerTool({ name: 'bigint', handler: () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 1n } }) });
    served = await serve({ registry });
    const sessionId = await openSession(served.url);
    const call = track(new SseReader(await postSse(served.url, { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'bigint' } }, sessionId)));
    expect((await call.nextMessage()).message).toMatchObject({ id: 4, error: { code: -32603 } });
    expect(await call.untilEnd()).toBe(true);
  });

  test('an unknown Last-Event-ID opens a fresh standalone stream', async () => {
    served = await serve();
    const sessionId = await openSession(served.url);
    const reader = track(new SseReader(await listen(served.url, sessionId, 'g99_999')));
    const priming = await reader.next();
    expect(priming.data).toBe('');
    expect(priming.id).not.toBe('g99_999');
  });

  test('notifications/cancelled ends the call\'s stream with no reply and aborts the handler', async () => {
    const registry = new Registry();
    let aborted = false;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    registry.registerTool({
      name: 'slow',
      handler: (_args, ctx) =>
        new Promise(() => {
          started();
          ctx.signal.addEventListener('abort', () => (aborted = true));
        }),
    });
    served = await serve({ registry });
    const sessionId = await openSession(served.url);
    const call = track(new SseReader(await postSse(served.url, { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'slow' } }, sessionId)));
    await call.next();
    await running;
    const cancel = await postSse(served.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1' } }, sessionId);
    expect(cancel.status).toBe(202);
    expect(aborted).toBe(true);
    expect(await call.untilEnd()).toBe(true);
    expect(served.server.stats().inFlight).toBe(0);
  });

  test('a second request with an id still in flight on the session is refused', async () => {
    const registry = new Registry();
    registry.registerTool({ name: 'never', handler: () => new Promise(() => {}) });
    served = await serve({ registry, callbackTimeoutMs: 60_000 });
    const sessionId = await openSession(served.url);
    const first = track(new SseReader(await postSse(served.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'never' } }, sessionId)));
    await first.next();
    const dup = await postSse(served.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, sessionId);
    expect(dup.status).toBe(400);
    expect(await dup.json()).toMatchObject({ id: 1, error: { code: -32600 } });
  });
});

