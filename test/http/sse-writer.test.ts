import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, test } from 'vitest';
import { KeepAliveClock } from '../../transports/http/keep-alive.js';
import { SseWriter, type SseBacklog, type SseCloseReason } from '../../transports/http/sse-writer.js';
import { formatSseEvent, type SseEvent } from '../../transports/http/sse-format.js';
import { virtualClock } from './helpers.js';

/** A response whose reader is the test: a write is taken (its callback run) only when the test says so. */
class ReaderControlledResponse extends EventEmitter {
  headersSent = false;
  destroyed = false;
  ended = false;
  body = '';
  private readonly waiting: { chunk: string; done: (error?: Error | null) => void }[] = [];

  get writableLength(): number {
    return this.waiting.reduce((sum, w) => sum + w.chunk.length, 0);
  }

  writeHead(): this {
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {}

  write(chunk: string | Buffer, done: (error?: Error | null) => void): boolean {
    this.headersSent = true;
    this.waiting.push({ chunk: String(chunk), done });
    return true;
  }

  end(chunk?: string): void {
    this.headersSent = true;
    this.body += this.waiting.splice(0).map((w) => w.chunk).join('') + (chunk ?? '');
    this.ended = true;
  }

  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }

  /** The reader takes the oldest write waiting; false when there was none. */
  take(): boolean {
    const write = this.waiting.shift();
    if (write === undefined) return false;
    this.body += write.chunk;
    write.done();
    return true;
  }
}

/** Takes every write as it comes, letting queued flushes run; bounded. */
async function readAll(res: ReaderControlledResponse, limit = 10_000): Promise<void> {
  for (let i = 0; i < limit && !res.ended; i += 1) if (!res.take()) await Promise.resolve();
}

const MiB = 1024 * 1024;
const STALL_MS = 1_000;

function writerOn(backlog?: SseBacklog, maxBufferedBytes = MiB) {
  const clock = virtualClock();
  const res = new ReaderControlledResponse();
  const writer = new SseWriter(res as unknown as ServerResponse, {
    maxBufferedBytes,
    stallTimeoutMs: STALL_MS,
    scheduler: clock.scheduler,
    keepAlive: new KeepAliveClock(60_000, clock.scheduler),
    backlog,
  });
  const closed: SseCloseReason[] = [];
  writer.onClose((reason) => closed.push(reason));
  writer.open();
  return { clock, res, writer, closed };
}

/** A store of the events given, as the event store keeps them. */
function storeOf(events: SseEvent[]): SseBacklog {
  return (afterId) => {
    const at = events.findIndex((e) => e.id === afterId);
    return at < 0 ? undefined : events.slice(at + 1);
  };
}

describe('SseWriter: a slow reader is judged by what stays unread over time', () => {
  test('a 3 MiB event reaches a reader that takes one slice per stall period; it is never cut off', () => {
    const { clock, res, writer, closed } = writerOn();
    const event = { id: 'e1', data: 'x'.repeat(3 * MiB) };
    expect(writer.event(event)).toBe(true);
    writer.end();
    let taken = 0;
    // Bounded: 3 MiB in 64 KiB slices is 48 takes.
    while (taken < 1000 && !res.ended) {
      clock.advance(STALL_MS - 1);
      if (res.take()) taken += 1;
    }
    clock.advance(10 * STALL_MS);
    expect(closed).toEqual(['ended']);
    expect(res.destroyed).toBe(false);
    expect(res.body).toBe(formatSseEvent(event));
  });

  test('a reader that takes nothing is cut off stallTimeoutMs after the stream congests, not sooner, not for the size', () => {
    const { clock, res, writer, closed } = writerOn();
    writer.event({ id: 'e1', data: 'x'.repeat(3 * MiB) });
    expect(writer.unsentBytes).toBeGreaterThan(MiB);
    clock.advance(STALL_MS - 1);
    expect(closed).toEqual([]);
    clock.advance(1);
    expect(closed).toEqual(['cut-off']);
    expect(res.destroyed).toBe(true);
    expect(writer.unsentBytes).toBe(0);
  });

  test('a reader that takes something every period is never cut off; once it stops, it is cut off within two periods', () => {
    const { clock, res, writer, closed } = writerOn();
    writer.event({ id: 'e1', data: 'x'.repeat(3 * MiB) });
    for (let i = 0; i < 5; i += 1) {
      clock.advance(STALL_MS - 1);
      res.take();
    }
    expect(closed).toEqual([]);
    clock.advance(STALL_MS);
    expect(closed).toEqual([]);
    clock.advance(STALL_MS);
    expect(closed).toEqual(['cut-off']);
  });

  test('a stream ended with output still waiting (under the bound) is cut off too once its reader takes nothing for a period', async () => {
    const { clock, res, writer, closed } = writerOn();
    writer.event({ id: 'e1', data: 'x'.repeat(512 * 1024) }); // under the bound: not congested
    await Promise.resolve(); // the turn ends: it goes out, in slices, most of them still queued
    writer.end();
    expect(closed).toEqual([]);
    clock.advance(STALL_MS - 1);
    res.take();
    clock.advance(STALL_MS);
    expect(closed).toEqual([]);
    clock.advance(STALL_MS);
    expect(closed).toEqual(['cut-off']);
  });

  test('while congested, events with an id wait in the backlog, not here; the reader gets them all, in order, then the end', async () => {
    const given: SseEvent[] = [];
    const { clock, res, writer, closed } = writerOn(storeOf(given), 256 * 1024);
    for (let i = 0; i < 40; i += 1) {
      const event = { id: `e${i}`, data: `${i}:${'y'.repeat(200 * 1024)}` };
      given.push(event);
      writer.event(event);
    }
    writer.end();
    // 8 MB given; what waits here is the bound plus one event at most.
    expect(writer.unsentBytes).toBeLessThanOrEqual(256 * 1024 + 2 * 210 * 1024);
    for (let turns = 0; turns < 10_000 && !res.ended; turns += 1) {
      if (!res.take()) await Promise.resolve();
      expect(writer.unsentBytes).toBeLessThanOrEqual(256 * 1024 + 2 * 210 * 1024);
    }
    clock.advance(10 * STALL_MS);
    expect(closed).toEqual(['ended']);
    expect(res.body).toBe(given.map(formatSseEvent).join(''));
  });

  test('events given after end() are refused; the backlog is read only up to the last event given', async () => {
    const given: SseEvent[] = [];
    const { res, writer } = writerOn(storeOf(given), 64 * 1024);
    for (const id of ['a', 'b']) {
      const event = { id, data: id.repeat(100 * 1024) };
      given.push(event);
      writer.event(event);
    }
    writer.end();
    // The stream's store goes on (a resumed stream took over): the ended writer must not send it.
    given.push({ id: 'c', data: 'c' });
    expect(writer.event({ id: 'c', data: 'c' })).toBe(false);
    await readAll(res);
    expect(res.body).toBe(given.slice(0, 2).map(formatSseEvent).join(''));
  });

  test('a backlog that lost the reader\'s place cuts the reader off (its resumption starts a new stream)', () => {
    let store: SseEvent[] | undefined = [];
    const { res, writer, closed } = writerOn((afterId) => (store === undefined ? undefined : storeOf(store)(afterId)), 64 * 1024);
    for (const id of ['a', 'b']) {
      const event = { id, data: id.repeat(100 * 1024) };
      store.push(event);
      writer.event(event);
    }
    store = undefined;
    while (closed.length === 0 && res.take());
    expect(closed).toEqual(['cut-off']);
  });

  test('without a backlog, what waits is held up to the bound plus one event; one more cuts the reader off at once', () => {
    const { res, writer, closed } = writerOn(undefined, 64 * 1024);
    expect(writer.event({ event: 'message', data: 'a'.repeat(100 * 1024) })).toBe(true); // out, congested
    expect(writer.event({ event: 'message', data: 'b'.repeat(100 * 1024) })).toBe(true); // held: over the bound now
    expect(closed).toEqual([]);
    expect(writer.event({ event: 'message', data: 'c' })).toBe(false);
    expect(closed).toEqual(['cut-off']);
    expect(res.destroyed).toBe(true);
  });

  test('without a backlog, a reader that reads gets what was held, in order', async () => {
    const { res, writer, closed } = writerOn(undefined, 64 * 1024);
    const events = ['a', 'b'].map((c) => ({ event: 'message', data: c.repeat(100 * 1024) }));
    for (const event of events) writer.event(event);
    writer.end();
    await readAll(res);
    expect(closed).toEqual(['ended']);
    expect(res.body).toBe(events.map(formatSseEvent).join(''));
  });
});
