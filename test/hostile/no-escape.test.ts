/**
 * "No exception from encoding, a subscriber or a callback may ever escape to
 * the process." The mechanisms one by one, each with the input that used to
 * get through: the encoder on messages that cannot be encoded, a logger that
 * throws, an observer given to server.subscribe that throws, a direct
 * caller's object that throws when read, an output stream that throws.
 * RxJS reports what escapes a subscriber to `config.onUnhandledError` (by
 * default: rethrown on a timer, i.e. a crash), so that is what is watched.
 */
import { PassThrough, Writable } from 'node:stream';
import { Subject, config } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createServer, encodeMessage, Registry, type Logger, type OutboundMessage } from '../../lib/index.js';
import { serveStdio } from '../../transports/index.js';
import { within } from './demo-process.js';
import { deepArrayText, initializeRequest, ping, pong } from './hostile-json.js';
import { settle } from '../contract/helpers.js';

const escaped: unknown[] = [];
const previous = config.onUnhandledError;
beforeAll(() => {
  config.onUnhandledError = (error) => escaped.push(error);
});
afterAll(() => {
  config.onUnhandledError = previous;
});
afterEach(async () => {
  // RxJS reports on a timer of its own (timeoutProvider): let it fire before looking.
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(escaped).toEqual([]);
});

const INTERNAL = -32603;

describe('encodeMessage never throws', () => {
  const deep = JSON.parse(deepArrayText()) as unknown;
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const throwingToJson = { toJSON: () => { throw new Error('toJSON'); } };
  const throwingId = Object.defineProperty({ jsonrpc: '2.0', result: {} }, 'id', { enumerable: true, get: () => { throw new Error('id'); } });
  const proxy = new Proxy({}, { get: () => { throw new Error('get'); }, has: () => { throw new Error('has'); }, ownKeys: () => { throw new Error('keys'); } });

  test.each([
    ['a reply whose id is 10,000 deep', { jsonrpc: '2.0', id: deep, result: {} }, null],
    ['a reply whose result is 10,000 deep', { jsonrpc: '2.0', id: 4, result: { deep } }, 4],
    ['a reply holding a cycle', { jsonrpc: '2.0', id: 'c', result: cyclic }, 'c'],
    ['a reply holding a BigInt, with a deep id', { jsonrpc: '2.0', id: deep, result: { n: 1n } }, null],
    ['a reply whose result has a throwing toJSON', { jsonrpc: '2.0', id: 5, result: throwingToJson }, 5],
    ['a reply whose id getter throws', throwingId, null],
  ])('%s: an internal error, for the id when it encodes, else id null', (_what, message, id) => {
    let text: string | null = null;
    expect(() => (text = encodeMessage(message as unknown as OutboundMessage))).not.toThrow();
    const reply = JSON.parse(text!);
    expect(reply).toMatchObject({ jsonrpc: '2.0', id, error: { code: INTERNAL } });
  });

  test('a Proxy that throws on every read is not even a reply: null, no throw', () => {
    expect(encodeMessage(proxy as OutboundMessage)).toBeNull();
  });

  test('a notification that cannot be encoded is dropped (null)', () => {
    expect(encodeMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { deep } })).toBeNull();
  });
});

describe('a logger that throws', () => {
  const throwing: Logger = {
    debug: () => { throw new Error('debug'); },
    info: () => { throw new Error('info'); },
    warn: () => { throw new Error('warn'); },
    error: () => { throw new Error('error'); },
  };

  test('a crashing tool is still answered callback_crashed, and the connection goes on', () => {
    const registry = new Registry().registerTool({ name: 'boom', handler: () => { throw new Error('boom'); } });
    const server = createServer({ registry, logger: throwing });
    const inbound = new Subject<unknown>();
    const received: OutboundMessage[] = [];
    const subscription = server.connect('c', inbound).subscribe((m) => received.push(m));
    inbound.next({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'boom' } });
    inbound.next(ping(2));
    expect(received).toStrictEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Error: callback_crashed' }], isError: true } },
      pong(2),
    ]);
    subscription.unsubscribe();
  });
});

describe('an observer given to server.subscribe that throws', () => {
  test('its throw is contained; broadcasts and pushes go on to everyone else', () => {
    const server = createServer();
    const healthy: OutboundMessage[] = [];
    const thrower = server.subscribe(() => { throw new Error('subscriber'); }, 'a');
    const other = server.subscribe((m) => healthy.push(m), 'b');
    server.notify('notifications/tools/list_changed');
    server.notify('notifications/resources/list_changed');
    expect(healthy.map((m) => (m as { method: string }).method)).toEqual([
      'notifications/tools/list_changed',
      'notifications/resources/list_changed',
    ]);
    thrower.unsubscribe();
    other.unsubscribe();
  });
});

describe('a direct caller\'s object that throws when read', () => {
  const throwsOnParams = () => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', get params(): unknown { throw new Error('params'); } });
  const throwsOnName = () => ({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { get name(): unknown { throw new Error('name'); } } });

  test('handleMessage resolves an internal error (id null when the envelope itself could not be read)', async () => {
    const server = createServer();
    expect(await server.handleMessage(throwsOnParams())).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: INTERNAL } });
    expect(await server.handleMessage(throwsOnName())).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: INTERNAL } });
  });

  test('request never throws at its caller; its reply is the internal error', async () => {
    const server = createServer();
    let pending!: ReturnType<typeof server.request>;
    expect(() => (pending = server.request(throwsOnName()))).not.toThrow();
    expect(await pending.reply).toMatchObject({ id: 2, error: { code: INTERNAL } });
  });

  test('over connect, the connection answers and goes on', () => {
    const server = createServer();
    const inbound = new Subject<unknown>();
    const received: OutboundMessage[] = [];
    const subscription = server.connect('c', inbound).subscribe((m) => received.push(m));
    inbound.next(throwsOnName());
    inbound.next(ping(3));
    expect(received).toMatchObject([{ id: 2, error: { code: INTERNAL } }, pong(3)]);
    subscription.unsubscribe();
  });
});

describe('a stdio output whose write throws', () => {
  test('is an output failure: logged, the connection closes, nothing escapes', async () => {
    const errors: string[] = [];
    const logger: Logger = { debug: () => {}, info: () => {}, warn: (_o, msg) => errors.push(String(msg)), error: (_o, msg) => errors.push(String(msg)) };
    const server = createServer({ logger });
    const input = new PassThrough();
    const output = new Writable({ write: () => { throw new Error('disk on fire'); } });
    const handle = serveStdio(server, { input, output });
    input.write(`${JSON.stringify(initializeRequest(1))}\n`);
    input.write('not json\n');
    await within(handle.closed, 5000, 'stdio close');
    await settle();
    expect(errors).toContain('stdio: output failed; closing the connection');
    expect(server.stats().connections).toBe(0);
  });
});
