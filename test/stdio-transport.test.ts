/**
 * serveStdio over an in-process PassThrough pair: framing (LF, CRLF, a last
 * line without newline), -32700 for undecodable and overlong lines, calls in
 * flight at once, elicitation, backpressure, and a clean end. Time is a
 * VirtualTimeScheduler: nothing here sleeps.
 */
import { PassThrough, Writable } from 'node:stream';
import { VirtualTimeScheduler } from 'rxjs';
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { ConfigError, createServer, Registry, type McpServer } from '../lib/index.js';
import { serveStdio, type StdioHandle } from '../transports/index.js';
import { LineSplitter, type LineEvent } from '../transports/stdio.js';
import { createDemoServer } from '../examples/demo/server.js';

type Message = Record<string, any>;

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 'init',
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
};
const INITIALIZE_ELICITING = { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: { elicitation: {} } } };

function ping(id: unknown): Message {
  return { jsonrpc: '2.0', id, method: 'ping' };
}

function call(id: unknown, name: string, args: Record<string, unknown> = {}): Message {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
}

/** Reads `output` as JSON lines; `next()` waits for the next message. */
class LineReader {
  readonly messages: Message[] = [];
  private buffered = '';
  private read = 0;
  private wake: (() => void) | undefined;

  constructor(output: NodeJS.ReadableStream) {
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) !== -1) {
        this.messages.push(JSON.parse(this.buffered.slice(0, newline)) as Message);
        this.buffered = this.buffered.slice(newline + 1);
      }
      this.wake?.();
    });
  }

  async next(): Promise<Message> {
    while (this.read >= this.messages.length) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    return this.messages[this.read++]!;
  }

  async take(count: number): Promise<Message[]> {
    const taken: Message[] = [];
    for (let i = 0; i < count; i += 1) taken.push(await this.next());
    return taken;
  }

  get unread(): number {
    return this.messages.length - this.read;
  }

  /** Output bytes that did not end in a newline: must stay empty. */
  get partial(): string {
    return this.buffered;
  }
}

interface Wire {
  readonly input: PassThrough;
  readonly output: PassThrough;
  readonly reader: LineReader;
  readonly handle: StdioHandle;
  send(message: unknown): void;
  sendRaw(text: string | Buffer): void;
}

function wire(server: McpServer, options: { maxLineBytes?: number } = {}): Wire {
  const input = new PassThrough();
  const output = new PassThrough();
  const reader = new LineReader(output);
  const handle = serveStdio(server, { input, output, ...options });
  return {
    input,
    output,
    reader,
    handle,
    send: (message) => input.write(`${JSON.stringify(message)}\n`),
    sendRaw: (text) => input.write(text),
  };
}

/** Lets stream events and Promise callbacks run; no timers involved. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

function testRegistry(): Registry {
  return new Registry()
    .registerTool({ name: 'echo', handler: ({ text }) => String(text) })
    .registerTool({ name: 'whoami', handler: (_args, ctx) => `${ctx.connId}/${ctx.transport}` })
    .registerTool({ name: 'approve_me', handler: () => 'approved and ran' });
}

const PARSE_ERROR_JSON = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid JSON' } };

describe('serveStdio: framing and replies', () => {
  test('answers each line in order, as the default connection declared stdio', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.send(INITIALIZE);
    w.send(ping(1));
    w.send(call(2, 'whoami'));
    const [init, pong, who] = await w.reader.take(3);
    expect(init).toMatchObject({ id: 'init', result: { protocolVersion: '2025-11-25' } });
    expect(pong).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(who).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'default/stdio' }] } });
    w.input.end();
    await w.handle.closed;
  });

  test('bad JSON gets -32700 with id null and the next line still works', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.sendRaw('{"jsonrpc":"2.0","id":1,"method":\n');
    w.send(ping(2));
    expect(await w.reader.take(2)).toEqual([PARSE_ERROR_JSON, { jsonrpc: '2.0', id: 2, result: {} }]);
    w.input.end();
    await w.handle.closed;
  });

  test('invalid UTF-8 is undecodable, not replaced and parsed', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    // "\xff" inside a JSON string: a lenient decoder would make it U+FFFD and the line would parse.
    w.sendRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'), Buffer.from([0xff]), Buffer.from('"}}\n')]));
    w.send(ping(2));
    expect(await w.reader.take(2)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: invalid UTF-8' } },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    w.input.end();
    await w.handle.closed;
  });

  test('CRLF lines, blank lines and a message split across chunks', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.send(INITIALIZE); // a tools/call before initialize is refused on stdio
    await w.reader.take(1);
    w.sendRaw(`${JSON.stringify(ping(1))}\r\n\r\n   \n`);
    const split = JSON.stringify(call(2, 'echo', { text: 'über' }));
    const bytes = Buffer.from(`${split}\r\n`);
    // Split inside the two-byte "ü" and between \r and \n.
    const cut = bytes.indexOf(0xc3) + 1;
    w.sendRaw(bytes.subarray(0, cut));
    await settle();
    w.sendRaw(bytes.subarray(cut, bytes.length - 1));
    await settle();
    w.sendRaw(bytes.subarray(bytes.length - 1));
    expect(await w.reader.take(2)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'über' }] } },
    ]);
    await settle();
    expect(w.reader.unread).toBe(0);
    w.input.end();
    await w.handle.closed;
  });

  test('a final line without a newline is still answered before closing', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.input.end(JSON.stringify(ping('last')));
    await w.handle.closed;
    await settle();
    expect(w.reader.messages).toEqual([{ jsonrpc: '2.0', id: 'last', result: {} }]);
    expect(w.reader.partial).toBe('');
  });

  test('a non-object JSON line is the server\'s -32600, not a parse error', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.sendRaw('[1,2]\n');
    const reply = await w.reader.next();
    expect(reply).toMatchObject({ id: null, error: { code: -32600 } });
    w.input.end();
    await w.handle.closed;
  });
});

describe('serveStdio: line length limit', () => {
  const LIMIT = 64;
  const overlongError = {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32700, message: `Parse error: line exceeds maxLineBytes (${LIMIT} bytes)` },
  };

  /** A ping whose JSON is exactly `size` bytes (padded with spaces inside the object). */
  function pingOfSize(id: number, size: number): string {
    const bare = JSON.stringify(ping(id));
    expect(bare.length).toBeLessThanOrEqual(size);
    return `${bare.slice(0, -1)}${' '.repeat(size - bare.length)}}`;
  }

  test('an overlong line gets -32700 naming the limit, and the next line works', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server, { maxLineBytes: LIMIT });
    w.sendRaw(`${'x'.repeat(1000)}\n`);
    w.send(ping(2));
    expect(await w.reader.take(2)).toEqual([overlongError, { jsonrpc: '2.0', id: 2, result: {} }]);
    w.input.end();
    await w.handle.closed;
  });

  test('exactly the limit is accepted (LF and CRLF); one byte more is not', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server, { maxLineBytes: LIMIT });
    w.sendRaw(`${pingOfSize(1, LIMIT)}\n`);
    w.sendRaw(`${pingOfSize(2, LIMIT)}\r\n`);
    w.sendRaw(`${pingOfSize(3, LIMIT + 1)}\n`);
    w.sendRaw(`${pingOfSize(4, LIMIT + 1)}\r\n`);
    expect(await w.reader.take(4)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
      overlongError,
      overlongError,
    ]);
    w.input.end();
    await w.handle.closed;
  });

  test('an overlong line sent in many chunks is reported once, before it ends, and skipped', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server, { maxLineBytes: LIMIT });
    // Looks like a request that would be answered if any of it were kept.
    w.sendRaw(`{"jsonrpc":"2.0","id":"hidden","method":"ping","params":{"pad":"`);
    for (let i = 0; i < 50; i += 1) w.sendRaw('y'.repeat(100));
    expect(await w.reader.next()).toEqual(overlongError);
    w.sendRaw(`"}}\n${JSON.stringify(ping('after'))}\n`);
    expect(await w.reader.next()).toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
    await settle();
    expect(w.reader.unread).toBe(0);
    w.input.end();
    await w.handle.closed;
  });

  test('an overlong final line without a newline gets one -32700 and nothing else', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server, { maxLineBytes: LIMIT });
    w.input.end('z'.repeat(LIMIT * 3));
    await w.handle.closed;
    await settle();
    expect(w.reader.messages).toEqual([overlongError]);
  });

  test('maxLineBytes and connId are validated', () => {
    const server = createServer();
    for (const bad of [0, -1, 1.5, Number.POSITIVE_INFINITY, '10']) {
      expect(() => serveStdio(server, { input: new PassThrough(), output: new PassThrough(), maxLineBytes: bad as number })).toThrow(ConfigError);
    }
    expect(() => serveStdio(server, { input: new PassThrough(), output: new PassThrough(), connId: '' })).toThrow(ConfigError);
    expect(server.stats().connections).toBe(0);
  });
});

describe('LineSplitter', () => {
  function lines(events: LineEvent[]): Array<string | null> {
    return events.map((e) => (e.kind === 'line' ? e.bytes.toString('latin1') : null));
  }

  test('any chunking gives the same lines, and never holds more than the limit + 1', () => {
    const limit = 16;
    const lineArb = fc.string({ unit: fc.constantFrom('a', 'b', '\r', ' ', '{'), maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(lineArb, fc.boolean()), { maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 1, maxLength: 20 }),
        (parts, cuts) => {
          const text = parts.map(([line, crlf]) => `${line}${crlf ? '\r\n' : '\n'}`).join('');
          const expected = parts.map(([line, crlf]) => {
            const content = crlf ? line : line.endsWith('\r') ? line.slice(0, -1) : line;
            return content.length > limit ? null : content;
          });
          const splitter = new LineSplitter(limit);
          const bytes = Buffer.from(text, 'latin1');
          const got: LineEvent[] = [];
          let offset = 0;
          for (let i = 0; offset < bytes.length; i += 1) {
            const size = cuts[i % cuts.length]!;
            got.push(...splitter.push(bytes.subarray(offset, offset + size)));
            expect(splitter.bufferedBytes).toBeLessThanOrEqual(limit + 1);
            offset += size;
          }
          got.push(...splitter.end());
          expect(lines(got)).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a 10 MiB line without newline is never buffered', () => {
    const splitter = new LineSplitter(1024);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const events: LineEvent[] = [];
    for (let i = 0; i < 160; i += 1) {
      events.push(...splitter.push(chunk));
      expect(splitter.bufferedBytes).toBe(0);
    }
    events.push(...splitter.push(Buffer.from('\nok\n')));
    expect(lines(events)).toEqual([null, 'ok']);
  });

  test('refuses a limit that is not a positive integer', () => {
    expect(() => new LineSplitter(0)).toThrow(RangeError);
  });
});

describe('serveStdio: concurrency, elicitation, lifetime (virtual clock)', () => {
  test('slow calls run at once: a later quick call answers first, then each slow one as its time comes', async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = createDemoServer({ scheduler });
    const w = wire(server);
    w.send(INITIALIZE);
    w.send(call('slow-500', 'slow_task', { ms: 500 }));
    w.send(call('slow-100', 'slow_task', { ms: 100 }));
    w.send(call('echo', 'echo', { text: 'not blocked' }));
    const [, echo] = await w.reader.take(2);
    expect(echo).toMatchObject({ id: 'echo', result: { content: [{ type: 'text', text: 'not blocked' }] } });
    await settle();
    expect(server.stats().inFlight).toBe(2);

    scheduler.maxFrames = 100;
    scheduler.flush();
    expect(await w.reader.next()).toEqual({ jsonrpc: '2.0', id: 'slow-100', result: { content: [{ type: 'text', text: 'Waited 100 ms' }] } });
    await settle();
    expect(w.reader.unread).toBe(0);

    scheduler.maxFrames = 500;
    scheduler.flush();
    expect(await w.reader.next()).toEqual({ jsonrpc: '2.0', id: 'slow-500', result: { content: [{ type: 'text', text: 'Waited 500 ms' }] } });
    expect(server.stats().inFlight).toBe(0);
    w.input.end();
    await w.handle.closed;
  });

  test('a parked tools/call: the elicitation is written, and the eventual response is the reply', async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = createServer({
      registry: testRegistry(),
      scheduler,
      authorizer: (name) => (name === 'approve_me' ? { ask: 'Run it?' } : 'allow'),
      authorizerSource: 'configured',
    });
    const w = wire(server);
    w.send(INITIALIZE_ELICITING);
    w.send(call('c1', 'approve_me'));
    const [, taken] = await w.reader.take(2);
    const elicit = taken!;
    expect(elicit).toMatchObject({ method: 'elicitation/create', params: { message: 'Run it?' } });
    expect(elicit.id).toMatch(/^rxmcp-elicit-[A-Za-z0-9_-]{16,}$/);
    expect(server.stats().parked).toBe(1);
    w.send(ping('meanwhile'));
    expect(await w.reader.next()).toEqual({ jsonrpc: '2.0', id: 'meanwhile', result: {} });
    w.send({ jsonrpc: '2.0', id: elicit.id, result: { action: 'accept', content: { approve: true } } });
    expect(await w.reader.next()).toEqual({ jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'approved and ran' }] } });
    w.input.end();
    await w.handle.closed;
  });

  test('input end waits drainMs for the calls in flight, then drops parked calls and aborts running ones, resolves closed, and leaves nothing behind', async () => {
    const scheduler = new VirtualTimeScheduler();
    const signals: AbortSignal[] = [];
    const registry = testRegistry().registerTool({
      name: 'hang',
      handler: (_args, ctx) => {
        signals.push(ctx.signal);
        return new Promise(() => {});
      },
    });
    const server = createServer({
      registry,
      scheduler,
      authorizer: (name) => (name === 'approve_me' ? { ask: 'Run it?' } : 'allow'),
      authorizerSource: 'configured',
    });
    const w = wire(server);
    w.send(INITIALIZE_ELICITING);
    w.send(call('parked', 'approve_me'));
    w.send(call('running', 'hang'));
    await w.reader.take(2);
    await settle();
    expect(server.stats()).toMatchObject({ connections: 1, inFlight: 1, parked: 1, capabilityEntries: 1 });

    w.input.end();
    await settle();
    // Owed two replies: the connection lives on for drainMs (1000 by default) on the server's clock.
    expect(server.stats()).toMatchObject({ connections: 1, inFlight: 1, parked: 1 });
    scheduler.maxFrames = 999;
    scheduler.flush();
    await settle();
    expect(server.stats()).toMatchObject({ connections: 1, inFlight: 1, parked: 1 });
    scheduler.maxFrames = 1000;
    scheduler.flush();
    await w.handle.closed;
    expect(signals).toHaveLength(1);
    expect(signals[0]!.aborted).toBe(true);
    expect(server.stats()).toMatchObject({ connections: 0, inFlight: 0, parked: 0, capabilityEntries: 0, outstandingRequests: 0 });
    // No timer left on the clock (elicitation timeout, callback timeout), so nothing can reply late.
    expect(scheduler.actions).toHaveLength(0);
    scheduler.flush();
    await settle();
    expect(w.reader.unread).toBe(0);
  });

  test('the demo slow_task stops its own timer when the connection goes', async () => {
    const scheduler = new VirtualTimeScheduler();
    const server = createDemoServer({ scheduler });
    const w = wire(server);
    w.send(INITIALIZE);
    w.send(call('slow', 'slow_task', { ms: 10_000 }));
    await w.reader.next();
    await settle();
    // Its own wait plus the server's callback timeout.
    expect(scheduler.actions.map((a) => a.delay).sort((a, b) => a - b)).toEqual([10_000, 300_000]);
    w.input.end();
    await settle();
    // The drain (1000 ms) ends before the task (10 s) does: it is dropped then, its timer with it.
    scheduler.flush();
    await w.handle.closed;
    await settle();
    expect(scheduler.actions).toHaveLength(0);
    expect(server.stats()).toMatchObject({ connections: 0, inFlight: 0, parked: 0 });
  });

  test('close() ends the connection from our side and stops reading', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.send(ping(1));
    await w.reader.next();
    w.handle.close();
    await w.handle.closed;
    expect(w.input.isPaused()).toBe(true);
    expect(server.stats().connections).toBe(0);
    w.send(ping(2));
    await settle();
    expect(w.reader.unread).toBe(0);
    w.handle.close(); // idempotent
  });

  test('an output error ends the connection', async () => {
    const server = createServer({ registry: testRegistry() });
    const w = wire(server);
    w.send(ping(1));
    await w.reader.next();
    w.output.destroy(new Error('EPIPE'));
    await w.handle.closed;
    expect(server.stats().connections).toBe(0);
  });
});

describe('serveStdio: backpressure', () => {
  /** A Writable that takes one write and then holds every next one until released. */
  function slowOutput(): { output: Writable; written: string[]; release(): void } {
    const written: string[] = [];
    const held: Array<() => void> = [];
    let open = false;
    const output = new Writable({
      highWaterMark: 1,
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk.toString('utf8'));
        if (open) callback();
        else held.push(callback);
      },
    });
    return {
      output,
      written,
      release: () => {
        open = true;
        for (const callback of held.splice(0)) callback();
      },
    };
  }

  test('a full output pauses reading; no message is lost and order holds once it drains', async () => {
    const server = createServer({ registry: testRegistry() });
    const input = new PassThrough();
    const slow = slowOutput();
    const handle = serveStdio(server, { input, output: slow.output });
    for (let i = 1; i <= 5; i += 1) input.write(`${JSON.stringify(ping(i))}\n`);
    await settle();
    expect(input.isPaused()).toBe(true);
    // Reading stopped after the first reply filled the output; the rest wait in the input.
    expect(slow.written.length).toBeLessThan(5);
    slow.release();
    await settle();
    const ids = slow.written.join('').trim().split('\n').map((line) => (JSON.parse(line) as Message).id);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(input.isPaused()).toBe(false);
    input.end();
    await handle.closed;
  });
});
