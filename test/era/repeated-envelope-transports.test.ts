/**
 * The repeated-envelope shortcut (transports/repeated-envelope.ts) through
 * the transports that use it: stdio (serveStdio on in-process streams) and
 * WebSocket (a real socket on 127.0.0.1). A modern client repeating its
 * envelope gets the right answer to every call; a handler sees the
 * envelope in `ctx.meta`, shared and frozen from the second call on; a
 * handler that writes to it fails that call, and the next call's
 * `ctx.meta` is unchanged.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { Registry } from '../../lib/index.js';
import { serveWebSocket } from '../../transports/index.js';
import { makeServer, type Message } from '../contract/helpers.js';
import { RawWebSocket } from '../hostile/wire-clients.js';
import { INFO, modernMeta, modernRpc } from './modern-helpers.js';
import { stdioWire } from './stdio-wire.js';

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

const CALLS = 20;

function envelopeServer() {
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: ({ text }) => String(text) })
    .registerTool({ name: 'meta', handler: (_args, ctx) => JSON.stringify({ meta: ctx.meta, frozen: Object.isFrozen(ctx.meta) }) })
    .registerTool({
      name: 'rename_client',
      handler: (_args, ctx) => {
        // A module is strict code: writing to a frozen object throws.
        (ctx.meta![INFO] as { name: string }).name = 'renamed';
        return 'renamed';
      },
    });
  return makeServer({ registry, logger: { debug() {}, info() {}, warn() {}, error() {} } });
}

function call(id: number, name: string, args: Record<string, unknown> = {}): Message {
  return modernRpc(id, 'tools/call', { name, arguments: args });
}

/** The text of a complete tool result, or what came instead. */
function textOf(reply: Message): unknown {
  return reply.result?.resultType === 'complete' && reply.result.isError !== true ? reply.result.content[0].text : reply;
}

/** One modern client's session, the same over every transport. */
async function session(send: (m: unknown) => void, next: () => Promise<Message>): Promise<void> {
  for (let id = 1; id <= CALLS; id += 1) {
    send(call(id, 'echo', { text: `call ${id} ${'x'.repeat(id)}` }));
    const reply = await next();
    expect(reply.id).toBe(id);
    expect(textOf(reply)).toBe(`call ${id} ${'x'.repeat(id)}`);
  }

  send(call(100, 'meta'));
  const seen = JSON.parse(textOf(await next()) as string);
  // The handler sees the envelope as sent, and it is the shared one (frozen): the shortcut was taken.
  expect(seen).toEqual({ meta: modernMeta(), frozen: true });

  send(call(101, 'rename_client'));
  const failed = await next();
  // The handler's TypeError is that call's tool error (the server does not say why: callback_crashed).
  expect(failed).toMatchObject({ id: 101, result: { resultType: 'complete', isError: true } });

  send(call(102, 'meta'));
  expect(JSON.parse(textOf(await next()) as string)).toEqual({ meta: modernMeta(), frozen: true });
  send(call(103, 'echo', { text: 'still served' }));
  expect(textOf(await next())).toBe('still served');
}

describe('stdio', () => {
  test(`a modern client repeating its envelope: ${CALLS} echoes, ctx.meta shared and frozen, a write to it fails only that call`, async () => {
    const s = stdioWire(envelopeServer(), closers);
    await session(s.send, s.next);
  });

  test('the first call of a connection (nothing remembered yet) may write to its own ctx.meta without touching the next', async () => {
    const s = stdioWire(envelopeServer(), closers);
    s.send(call(1, 'rename_client'));
    expect((await s.next()).id).toBe(1);
    s.send(call(2, 'meta'));
    expect(JSON.parse(textOf(await s.next()) as string).meta).toEqual(modernMeta());
  });
});

describe('WebSocket', () => {
  test(`a modern client repeating its envelope: ${CALLS} echoes, ctx.meta shared and frozen, a write to it fails only that call`, async () => {
    const ws = await serveWebSocket(envelopeServer(), { port: 0, pingIntervalMs: null });
    closers.push(() => ws.close());
    const socket = await RawWebSocket.open(ws.url!);
    closers.push(() => socket.close());
    await session((m) => socket.send(m), () => socket.next());
  });
});
