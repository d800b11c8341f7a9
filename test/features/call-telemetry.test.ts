/**
 * call_completed on events$: one per request, with method, name, outcome,
 * duration on the server's scheduler and sizes; and nothing built at all
 * while nobody listens.
 */
import { map, timer } from 'rxjs';
import { describe, expect, test, vi } from 'vitest';
import { Registry, ToolError, type ServerEvent } from '../../lib/index.js';
import type { CallCompletedEvent } from '../../lib/events.js';
import { silentLogger } from '../../lib/logger.js';
import { ELICITING, collect, initialize, makeServer, rpc } from '../contract/helpers.js';

function completed(events: ServerEvent[]): CallCompletedEvent[] {
  return events.filter((e): e is CallCompletedEvent => e.type === 'call_completed');
}

function bytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

function telemetryServer(listen = true) {
  const registry = new Registry()
    .registerTool({ name: 'echo', handler: (args) => `echo: ${String(args.text)}` })
    .registerTool({ name: 'refuse', handler: () => { throw new ToolError('no'); } })
    .registerTool({ name: 'crash', handler: () => { throw new Error('boom'); } })
    .registerTool({ name: 'never', handler: () => new Promise(() => {}) })
    .registerTool({ name: 'danger', handler: () => 'ran' })
    .registerResource({ uri: 'mem://a', name: 'a', read: () => 'A' });
  const server = makeServer({
    registry,
    logger: silentLogger(),
    authorizer: (name) => (name === 'danger' ? { ask: 'sure?' } : 'allow'),
  });
  const events: ServerEvent[] = [];
  if (listen) server.events$.subscribe((e) => events.push(e));
  return { server, events };
}

describe('call_completed', () => {
  test('an answered call: method, name, connection, transport, request id, outcome ok, sizes of request and reply', async () => {
    const { server, events } = telemetryServer();
    const message = rpc(7, 'tools/call', { name: 'echo', arguments: { text: 'héllo' } });
    const reply = await server.handleMessage(message, { connId: 'c1' });
    expect(completed(events)).toStrictEqual([
      {
        type: 'call_completed',
        connId: 'c1',
        transport: 'unknown',
        method: 'tools/call',
        name: 'echo',
        requestId: 7,
        outcome: 'ok',
        durationMs: 0,
        requestBytes: bytes(message),
        replyBytes: bytes(reply),
      },
    ]);
    // UTF-8 bytes, not UTF-16 units: "é" is two.
    expect(completed(events)[0]!.requestBytes).toBe(JSON.stringify(message).length + 1);
  });

  test('outcomes: a ToolError and a crash are tool_error, a JSON-RPC error is error with its code, a read names its URI', async () => {
    const { server, events } = telemetryServer();
    await server.handleMessage(rpc(1, 'tools/call', { name: 'refuse' }));
    await server.handleMessage(rpc(2, 'tools/call', { name: 'crash' }));
    await server.handleMessage(rpc(3, 'tools/call', { name: 'missing' }));
    await server.handleMessage(rpc(4, 'resources/read', { uri: 'mem://a' }));
    await server.handleMessage(rpc(5, 'tools/list'));
    await server.handleMessage(rpc(6, 'tools/call', {}));
    expect(completed(events).map(({ requestId, method, name, outcome, errorCode }) => ({ requestId, method, name, outcome, errorCode }))).toStrictEqual([
      { requestId: 1, method: 'tools/call', name: 'refuse', outcome: 'tool_error', errorCode: undefined },
      { requestId: 2, method: 'tools/call', name: 'crash', outcome: 'tool_error', errorCode: undefined },
      { requestId: 3, method: 'tools/call', name: 'missing', outcome: 'error', errorCode: -32601 },
      { requestId: 4, method: 'resources/read', name: 'mem://a', outcome: 'ok', errorCode: undefined },
      { requestId: 5, method: 'tools/list', name: undefined, outcome: 'ok', errorCode: undefined },
      { requestId: 6, method: 'tools/call', name: undefined, outcome: 'error', errorCode: -32602 },
    ]);
  });

  test('the duration is measured on the server scheduler: a tool answering after 250 virtual ms took 250 ms', async () => {
    const registry = new Registry();
    const server = makeServer({ registry, logger: silentLogger() });
    registry.registerTool({ name: 'slow', handler: () => timer(250, server.virtual).pipe(map(() => 'late')) });
    const events: ServerEvent[] = [];
    server.events$.subscribe((e) => events.push(e));
    const reply = server.handleMessage(rpc(1, 'tools/call', { name: 'slow' }));
    server.virtual.flush();
    expect(await reply).toMatchObject({ result: { content: [{ type: 'text', text: 'late' }] } });
    expect(completed(events)).toMatchObject([{ name: 'slow', outcome: 'ok', durationMs: 250 }]);
  });

  test('a cancelled call is cancelled, with no reply bytes; a parked call answered null through handleMessage is pending', async () => {
    const { server, events } = telemetryServer();
    const { reply, ref } = server.request(rpc(1, 'tools/call', { name: 'never' }), 'c1');
    server.cancel(ref);
    expect(await reply).toBeNull();
    const pushes = collect(server, 'asker');
    await server.handleMessage(initialize('i', ELICITING), { connId: 'asker' });
    expect(await server.handleMessage(rpc(2, 'tools/call', { name: 'danger' }), { connId: 'asker' })).toBeNull();
    expect(completed(events).filter((e) => e.method === 'tools/call')).toMatchObject([
      { requestId: 1, name: 'never', outcome: 'cancelled', replyBytes: 0 },
      { requestId: 2, name: 'danger', outcome: 'pending', replyBytes: 0 },
    ]);
    pushes.subscription.unsubscribe();
  });

  test('notifications/cancelled from the client is a cancelled call', async () => {
    const { server, events } = telemetryServer();
    const { reply } = server.request(rpc('slow-1', 'tools/call', { name: 'never' }), 'c1');
    await server.handleMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'slow-1' } }, { connId: 'c1' });
    expect(await reply).toBeNull();
    expect(completed(events)).toMatchObject([{ requestId: 'slow-1', outcome: 'cancelled' }]);
  });

  test('with nobody subscribed, no event is built: the clock is not even read for a synchronous call', async () => {
    const { server } = telemetryServer(false);
    const now = vi.spyOn(server.virtual, 'now');
    await server.handleMessage(rpc(1, 'tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(now).not.toHaveBeenCalled();
    const events: ServerEvent[] = [];
    const listening = server.events$.subscribe((e) => events.push(e));
    await server.handleMessage(rpc(2, 'tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(now).toHaveBeenCalled();
    expect(completed(events)).toHaveLength(1);
    listening.unsubscribe();
    now.mockClear();
    await server.handleMessage(rpc(3, 'tools/call', { name: 'echo', arguments: { text: 'x' } }));
    expect(now).not.toHaveBeenCalled();
  });
});
