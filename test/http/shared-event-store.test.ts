/**
 * Resuming a stream from an event store that answers later (a shared store,
 * such as the Redis one): what the session sends while the replay is on its
 * way is neither lost nor sent twice, whether or not the replay already saw
 * it; and when more was sent meanwhile than is noted, the resumed stream
 * ends after the replay, so the client resumes again and gets the rest.
 */
import { describe, expect, test } from 'vitest';
import { InMemoryEventStore, type EventStore, type Replay } from '../../lib/ports/event-store.js';
import { Registry } from '../../lib/index.js';
import { closedAfterEach, eventually, openSession, SseReader, type Served } from './helpers.js';

/** An in-memory store whose replays wait for `release()`; read when asked, or when released. */
class LaterStore implements EventStore {
  readonly shared = true;
  readonly inner = new InMemoryEventStore();
  readonly waiting: (() => void)[] = [];

  constructor(private readonly readAt: 'ask' | 'release') {}

  append(sessionId: string, streamId: string, data: string | null): string {
    return this.inner.append(sessionId, streamId, data);
  }

  replayAfter(sessionId: string, lastEventId: string): Promise<Replay | undefined> {
    const early = this.readAt === 'ask' ? this.inner.replayAfter(sessionId, lastEventId) : undefined;
    return new Promise((resolve) => this.waiting.push(() => resolve(this.readAt === 'ask' ? early : this.inner.replayAfter(sessionId, lastEventId))));
  }

  release(): void {
    for (const go of this.waiting.splice(0)) go();
  }

  deleteSession(sessionId: string): void {
    this.inner.deleteSession(sessionId);
  }
}

const { serve, track } = closedAfterEach();
let served: Served | undefined;

function listen(url: string, sessionId: string, lastEventId: string): Promise<Response> {
  return fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': sessionId, 'last-event-id': lastEventId } });
}

/** A tool that reports progress when the test says, and ends when it says. */
function stepsRegistry(): { registry: Registry; step: (n: number) => void; finish: () => void; started: () => boolean } {
  const registry = new Registry();
  let progress: ((n: number) => void) | undefined;
  let finish!: () => void;
  registry.registerTool({
    name: 'steps',
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        progress = (n) => ctx.progress(n);
        finish = () => resolve('done');
      }),
  });
  return { registry, step: (n) => progress!(n), finish: () => finish(), started: () => progress !== undefined };
}

async function startCall(store: LaterStore, maxBacklogMessages = 256) {
  const tool = stepsRegistry();
  served = await serve({ registry: tool.registry }, { eventStore: store, maxBacklogMessages });
  const sessionId = await openSession(served.url);
  const response = await fetch(served.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 'tok' } } }),
  });
  const call = track(new SseReader(response));
  await call.next(); // priming
  await eventually(tool.started);
  tool.step(1);
  const one = await call.nextMessage();
  expect(one.message.params).toMatchObject({ progress: 1 });
  // The client loses the stream; the call goes on without it.
  await call.cancel();
  await eventually(() => served!.http.handler.stats().openStreams === 0);
  return { ...tool, sessionId, cursor: one.id! };
}

async function progressOf(reader: SseReader): Promise<{ id: string | undefined; progress: unknown }> {
  const next = await reader.nextMessage();
  return { id: next.id, progress: (next.message.params as { progress?: unknown }).progress };
}

describe('resuming a stream from a store that replays later', () => {
  test.each(['ask', 'release'] as const)('what is sent during the replay (read at %s) follows it once, then the stream is live', async (readAt) => {
    const store = new LaterStore(readAt);
    const call = await startCall(store);
    call.step(2);
    const responding = listen(served!.url, call.sessionId, call.cursor);
    await eventually(() => store.waiting.length === 1);
    call.step(3); // sent while the replay is on its way
    store.release();
    const resumed = track(new SseReader(await responding));
    expect((await progressOf(resumed)).progress).toBe(2);
    expect((await progressOf(resumed)).progress).toBe(3);
    call.step(4);
    expect((await progressOf(resumed)).progress).toBe(4);
    call.finish();
    expect((await resumed.nextMessage()).message).toMatchObject({ id: 7, result: { content: [{ text: 'done' }] } });
    expect(await resumed.untilEnd()).toBe(true);
  });

  test('more sent meanwhile than is noted: the replay, then the end; resuming again gets the rest', async () => {
    const store = new LaterStore('ask');
    const call = await startCall(store, 2);
    call.step(2);
    const responding = listen(served!.url, call.sessionId, call.cursor);
    await eventually(() => store.waiting.length === 1);
    for (const n of [3, 4, 5]) call.step(n);
    store.release();
    const resumed = track(new SseReader(await responding));
    const two = await progressOf(resumed);
    expect(two.progress).toBe(2);
    expect(await resumed.untilEnd()).toBe(true);
    const again = listen(served!.url, call.sessionId, two.id!);
    await eventually(() => store.waiting.length === 1);
    store.release();
    const rest = track(new SseReader(await again));
    expect([(await progressOf(rest)).progress, (await progressOf(rest)).progress, (await progressOf(rest)).progress]).toEqual([3, 4, 5]);
    call.finish();
    expect((await rest.nextMessage()).message).toMatchObject({ id: 7, result: { content: [{ text: 'done' }] } });
  });
});
