/**
 * The fixture's multi-step tools keep their step delay on the server's
 * scheduler: on a virtual clock, each log line and progress notification
 * appears exactly a step after the previous one, and the result a step after
 * the last progress.
 */
import { VirtualTimeScheduler } from 'rxjs';
import { afterEach, expect, test } from 'vitest';
import { connectInMemory, type MemoryConnection } from '../../transports/index.js';
import { createEverythingServer } from '../../examples/everything/server.js';

type Message = Record<string, unknown>;

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

let connection: MemoryConnection | undefined;

afterEach(() => connection?.close());

function start() {
  const scheduler = new VirtualTimeScheduler();
  const server = createEverythingServer({ scheduler });
  connection = connectInMemory(server);
  const received: Message[] = [];
  connection.messages$.subscribe((m) => received.push(m as unknown as Message));
  connection.send({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  /** Runs the virtual clock up to `ms`, letting promise continuations schedule what comes next. */
  const advanceTo = async (ms: number) => {
    scheduler.maxFrames = ms;
    await settle();
    scheduler.flush();
    await settle();
  };
  return { received, advanceTo, send: connection.send };
}

test('test_tool_with_logging: one line now, one at 50 ms, the last and the result at 100 ms', async () => {
  const { received, advanceTo, send } = start();
  await advanceTo(0);
  const base = received.length;
  send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'test_tool_with_logging', arguments: {} } });
  await advanceTo(49);
  const line = (data: string) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
  expect(received.slice(base)).toEqual([line('Tool execution started')]);
  await advanceTo(99);
  expect(received.slice(base)).toEqual([line('Tool execution started'), line('Tool processing data')]);
  await advanceTo(100);
  expect(received.slice(base)).toEqual([
    line('Tool execution started'),
    line('Tool processing data'),
    line('Tool execution completed'),
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Logging test completed' }] } },
  ]);
});

test('test_tool_with_progress: 0 now, 50 at 50 ms, 100 at 100 ms, the result at 150 ms', async () => {
  const { received, advanceTo, send } = start();
  await advanceTo(0);
  const base = received.length;
  send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'p' } },
  });
  const progress = (value: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'p', progress: value, total: 100 },
  });
  await advanceTo(49);
  expect(received.slice(base)).toEqual([progress(0)]);
  await advanceTo(99);
  expect(received.slice(base)).toEqual([progress(0), progress(50)]);
  await advanceTo(149);
  expect(received.slice(base)).toEqual([progress(0), progress(50), progress(100)]);
  await advanceTo(150);
  expect(received.slice(base)).toEqual([
    progress(0),
    progress(50),
    progress(100),
    { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Progress test completed' }] } },
  ]);
});
