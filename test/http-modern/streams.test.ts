/**
 * A modern request's response stream (transports/http/modern-post.ts): its
 * own notifications on SSE when the client accepts it, then the reply; plain
 * JSON otherwise; and closing it is the cancellation: the handler's signal
 * fires and nothing is written after.
 */
import { EventEmitter } from 'node:events';
import { allowlist } from '../../lib/index.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { HttpContext } from '../../transports/http/context.js';
import type { ResponseSink } from '../../transports/http/exchange.js';
import { ModernExchanges } from '../../transports/http/modern-post.js';
import { SseReader } from '../http/helpers.js';
import { eraServer, modernRpc } from '../era/modern-helpers.js';
import { modernPost, serveModern } from './helpers.js';

let served: Awaited<ReturnType<typeof serveModern>>;
beforeAll(async () => {
  served = await serveModern();
});
afterAll(() => served.close());

describe('over SSE', () => {
  test('log lines at the request level and progress, then the reply; the stream ends; no session', async () => {
    const response = await modernPost(served.url, 1, 'tools/call', { name: 'chatty', _meta: { progressToken: 7 } }, { logLevel: 'warning' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const reader = new SseReader(response);
    expect((await reader.nextMessage()).message).toMatchObject({ method: 'notifications/message', params: { level: 'warning', data: 'careful' } });
    expect((await reader.nextMessage()).message).toMatchObject({ method: 'notifications/message', params: { level: 'error' } });
    expect((await reader.nextMessage()).message).toMatchObject({ method: 'notifications/progress', params: { progressToken: 7, progress: 1, total: 2 } });
    expect((await reader.nextMessage()).message).toMatchObject({ id: 1, result: { content: [{ text: 'said' }] } });
    expect(await reader.untilEnd()).toBe(true);
  });

  test('broadcasts (server.notify, list_changed) never reach a modern request\'s stream', async () => {
    let n = 0;
    served.server.registry.registerTool({
      name: 'broadcaster',
      handler: (_args, ctx) => {
        ctx.progress(1, 2, 'before');
        served.server.notify('notifications/message', { level: 'error', data: 'to everyone' });
        served.server.registry.registerTool({ name: `extra-${++n}`, handler: () => 'x' });
        ctx.progress(2, 2, 'after');
        return 'done';
      },
    }, { replace: true });
    const response = await modernPost(served.url, 5, 'tools/call', { name: 'broadcaster', _meta: { progressToken: 'b' } }, { logLevel: 'debug' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = new SseReader(response);
    const seen: unknown[] = [];
    for (;;) {
      const { message } = await reader.nextMessage();
      seen.push(message.method ?? message.id);
      if (message.id === 5) break;
    }
    expect(seen).toEqual(['notifications/progress', 'notifications/progress', 5]);
  });

  test('without a log level nothing is logged: the reply alone, as plain JSON', async () => {
    const response = await modernPost(served.url, 2, 'tools/call', { name: 'chatty' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 2, result: { content: [{ text: 'said' }] } });
  });

  test('a client that accepts only JSON gets the reply alone', async () => {
    const response = await modernPost(served.url, 3, 'tools/call', { name: 'chatty', _meta: { progressToken: 1 } }, { logLevel: 'debug', accept: 'application/json' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ id: 3, result: { content: [{ text: 'said' }] } });
  });
});

describe('closing the response stream cancels the request', () => {
  test('over the wire: the handler signal fires once the client drops the SSE stream', async () => {
    const controller = new AbortController();
    const aborted = served.aborted();
    const response = await modernPost(served.url, 4, 'tools/call', { name: 'waiter', _meta: { progressToken: 'w' } }, { signal: controller.signal });
    const reader = new SseReader(response);
    expect((await reader.nextMessage()).message).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'w' } });
    controller.abort();
    await aborted;
    expect(served.runs.filter((r) => r.startsWith('waiter'))).toEqual(['waiter started', 'waiter aborted']);
  });

  test('nothing is written after the close (the handler still answered)', async () => {
    const { server, runs } = eraServer({ authorizer: allowlist(['waiter']) });
    let aborted!: () => void;
    const abortedP = new Promise<void>((resolve) => (aborted = resolve));
    server.registry.registerTool({
      name: 'waiter',
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          runs.push('started');
          ctx.signal.addEventListener('abort', () => {
            runs.push('aborted');
            aborted();
            resolve('late');
          });
        }),
    });
    const writes: string[] = [];
    const res = Object.assign(new EventEmitter(), {
      headersSent: false,
      destroyed: false,
      writableLength: 0,
      writeHead: () => writes.push('writeHead'),
      write: () => writes.push('write'),
      end: () => writes.push('end'),
      flushHeaders: () => writes.push('flushHeaders'),
      destroy: () => writes.push('destroy'),
    });
    const ctx = {
      server,
      options: { trustedProxyHeader: undefined },
      logger: server.logger,
      openWriter: () => {
        throw new Error('a JSON-only exchange opens no stream');
      },
    } as unknown as HttpContext;
    const exchanges = new ModernExchanges(ctx);
    exchanges.serve({ method: 'POST', headers: {} }, res as unknown as ResponseSink, modernRpc(9, 'tools/call', { name: 'waiter' }), 9, false);
    expect(exchanges.size).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual(['started']);
    res.emit('close');
    await abortedP;
    // The handler resolved after its abort: let every turn that could carry its reply pass.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(runs).toEqual(['started', 'aborted']);
    expect(writes).toEqual([]);
    expect(exchanges.size).toBe(0);
    server.close();
  });
});
