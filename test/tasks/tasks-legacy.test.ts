/**
 * The same tasks on the 2025-11-25 wire, from the same store: the tasks
 * capability in initialize, task-augmented tools/call (`params.task`),
 * tasks/get (the Task alone), tasks/result (waits, then the result with the
 * related-task _meta, or the JSON-RPC error), tasks/list (own tasks, paged),
 * tasks/cancel (the cancelled Task; -32602 once ended), a question sent to
 * the client as a real elicitation/create tied to the task; and the official
 * SDK v1 client's experimental tasks API against it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';
import { legacyInitialize } from '../era/modern-helpers.js';
import { resultOf, taskServer } from './task-fixture.js';

const rpc = (id: unknown, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });

async function legacy(options: Parameters<typeof taskServer>[0] = {}, capabilities: Record<string, unknown> = {}) {
  const fixture = taskServer(options);
  const init = resultOf(await fixture.server.handleMessage(legacyInitialize(0, capabilities), { connId: 'c1' }));
  const send = (message: unknown, connId = 'c1') => fixture.server.handleMessage(message, { connId });
  return { ...fixture, init, send };
}

describe('2025-11-25 tasks', () => {
  test('initialize declares capabilities.tasks: tools/call, cancel and list', async () => {
    const { init } = await legacy();
    expect((init.capabilities as Record<string, unknown>).tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
  });

  test('params.task makes a task: the Task under `task`, then tasks/get, and tasks/result waits for the end', async () => {
    const { send, clock } = await legacy({ pollIntervalMs: 500, ttlMs: 60_000 });
    const created = resultOf(await send(rpc(1, 'tools/call', { name: 'slow', arguments: { ms: 300 }, task: { ttl: 5000 } })));
    const task = created.task as Record<string, unknown>;
    expect(task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 500 });
    expect(task).not.toHaveProperty('ttlMs');
    const taskId = task.taskId as string;
    expect(resultOf(await send(rpc(2, 'tasks/get', { taskId })))).toMatchObject({ taskId, status: 'working' });
    let answered: unknown;
    void send(rpc(3, 'tasks/result', { taskId })).then((r) => (answered = r));
    await clock.advance(299);
    expect(answered).toBeUndefined();
    await clock.advance(1);
    await clock.settle();
    expect(resultOf(answered)).toMatchObject({ content: [{ text: 'slept 300' }], _meta: { 'io.modelcontextprotocol/related-task': { taskId } } });
    expect(resultOf(await send(rpc(4, 'tasks/get', { taskId })))).not.toHaveProperty('result');
  });

  test('without params.task a tool runs plainly; a required one is -32601; a task asked of a plain tool is -32601', async () => {
    const { send } = await legacy();
    expect(resultOf(await send(rpc(1, 'tools/call', { name: 'tool_error' })))).toMatchObject({ isError: true });
    expect(await send(rpc(2, 'tools/call', { name: 'must' }))).toMatchObject({ error: { code: -32601, message: 'Tool must must be called as a task (params.task)' } });
    expect(await send(rpc(3, 'tools/call', { name: 'plain', task: {} }))).toMatchObject({ error: { code: -32601 } });
  });

  test('a failed task: tasks/result is its JSON-RPC error', async () => {
    const { send, clock } = await legacy();
    const taskId = (resultOf(await send(rpc(1, 'tools/call', { name: 'crash', task: {} }))).task as { taskId: string }).taskId;
    await clock.settle();
    expect(await send(rpc(2, 'tasks/result', { taskId }))).toMatchObject({ error: { code: -32603 } });
  });

  test('tasks/list pages the caller’s own tasks only; tasks/cancel answers the cancelled Task, and -32602 once ended', async () => {
    const { server, send, clock } = await legacy();
    await server.handleMessage(legacyInitialize(0), { connId: 'other' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((resultOf(await send(rpc(i, 'tools/call', { name: 'slow', arguments: { ms: 1000 }, task: {} }))).task as { taskId: string }).taskId);
    await server.handleMessage(rpc(9, 'tools/call', { name: 'slow', arguments: { ms: 1000 }, task: {} }), { connId: 'other' });
    const listed = resultOf(await send(rpc(10, 'tasks/list')));
    expect((listed.tasks as Array<{ taskId: string }>).map((t) => t.taskId)).toEqual(ids);
    expect(await send(rpc(11, 'tasks/get', { taskId: ids[0] }), 'other')).toMatchObject({ error: { code: -32602 } });
    const cancelled = resultOf(await send(rpc(12, 'tasks/cancel', { taskId: ids[0] })));
    expect(cancelled).toMatchObject({ taskId: ids[0], status: 'cancelled' });
    expect(await send(rpc(13, 'tasks/cancel', { taskId: ids[0] }))).toMatchObject({ error: { code: -32602 } });
    await clock.advance(1000);
    expect(await send(rpc(14, 'tasks/cancel', { taskId: ids[1] }))).toMatchObject({ error: { code: -32602 } });
    expect(await send(rpc(15, 'tasks/list', { cursor: '!' }))).toMatchObject({ error: { code: -32602 } });
  });

  test('a question is sent to the client as elicitation/create tied to the task, and the task is input_required until answered', async () => {
    const { server, clock } = taskServer();
    const inbound = new Subject<unknown>();
    const out: Array<Record<string, any>> = [];
    server.connect('c1', inbound).subscribe((m) => out.push(m as unknown as Record<string, any>));
    inbound.next(legacyInitialize(0, { elicitation: {} }));
    inbound.next(rpc(1, 'tools/call', { name: 'confirm', task: {} }));
    await clock.settle();
    const taskId = out.find((m) => m.id === 1)!.result.task.taskId as string;
    const asked = out.find((m) => m.method === 'elicitation/create')!;
    expect(asked.params._meta).toEqual({ 'io.modelcontextprotocol/related-task': { taskId } });
    inbound.next(rpc(2, 'tasks/get', { taskId }));
    await clock.settle();
    expect(out.find((m) => m.id === 2)!.result.status).toBe('input_required');
    inbound.next({ jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { ok: true } } });
    inbound.next(rpc(3, 'tasks/result', { taskId }));
    await clock.settle();
    expect(out.find((m) => m.id === 3)!.result.content[0].text).toBe('confirmed: {"ok":true}');
  });
});

describe('the official SDK v1 client, experimental tasks', () => {
  test('callToolStream: task created, polled, result; getTask, listTasks, cancelTask', async () => {
    const { server, clock } = taskServer({ pollIntervalMs: 1 });
    const client = new Client({ name: 'sdk-v1', version: '1' }, { capabilities: {} });
    await client.connect(new MemoryClientTransport(server));
    try {
      const seen: string[] = [];
      const stream = client.experimental.tasks.callToolStream({ name: 'slow', arguments: { ms: 200 } }, CallToolResultSchema, { task: { ttl: 60_000 } });
      const done = (async () => {
        for await (const message of stream) {
          seen.push(message.type === 'result' ? `result ${JSON.stringify((message.result as { content: unknown[] }).content)}` : message.type === 'error' ? `error ${message.error.message}` : message.type);
        }
      })();
      while (!seen.includes('taskCreated')) await clock.settle();
      await clock.advance(200);
      await done;
      expect(seen[0]).toBe('taskCreated');
      expect(seen.at(-1)).toBe('result [{"type":"text","text":"slept 200"}]');

      const created = await client.experimental.tasks.callToolStream({ name: 'slow', arguments: { ms: 10_000 } }, CallToolResultSchema, { task: {} })[Symbol.asyncIterator]().next();
      const taskId = (created.value as { task: { taskId: string } }).task.taskId;
      expect((await client.experimental.tasks.getTask(taskId)).status).toBe('working');
      expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(taskId);
      expect((await client.experimental.tasks.cancelTask(taskId)).status).toBe('cancelled');
    } finally {
      await client.close();
    }
  });

  test('an elicitation the task asks reaches the client’s handler, and the task completes with its answer', async () => {
    const { server, clock } = taskServer({ pollIntervalMs: 1 });
    const client = new Client({ name: 'sdk-v1', version: '1' }, { capabilities: { elicitation: {} } });
    const related: unknown[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request): ElicitResult => {
      related.push(request.params._meta?.['io.modelcontextprotocol/related-task']);
      return { action: 'accept', content: { ok: true } };
    });
    await client.connect(new MemoryClientTransport(server));
    try {
      const messages: string[] = [];
      for await (const message of client.experimental.tasks.callToolStream({ name: 'confirm' }, CallToolResultSchema, { task: {} })) {
        messages.push(message.type);
        if (message.type === 'result') expect((message.result as { content: Array<{ text: string }> }).content[0]!.text).toBe('confirmed: {"ok":true}');
        await clock.settle();
      }
      expect(messages.at(-1)).toBe('result');
      expect(related).toHaveLength(1);
      expect(related[0]).toMatchObject({ taskId: expect.stringMatching(/^task-/) });
    } finally {
      await client.close();
    }
  });

  test('a server without tasks ignores nothing silently: no tasks capability, tasks/get is -32601', async () => {
    const server = createServer();
    const init = resultOf(await server.handleMessage(legacyInitialize(0), { connId: 'c' }));
    expect(init.capabilities).not.toHaveProperty('tasks');
    expect(await server.handleMessage(rpc(1, 'tasks/get', { taskId: 'x' }), { connId: 'c' })).toMatchObject({ error: { code: -32601 } });
  });
});
