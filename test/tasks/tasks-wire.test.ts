/**
 * The tasks extension on the 2026-07-28 wire, in process on a TestClock:
 * declaration, task creation (flat CreateTaskResult, readable at once),
 * tasks/get through every status, tasks/update (partial answers, keys never
 * reused, ignored keys and malformed answers), tasks/cancel in every state,
 * the TTL, the bounds, owner binding, and what never goes out for a task.
 */
import { Subject } from 'rxjs';
import { describe, expect, test } from 'vitest';
import { createServer, makePrincipal, Registry } from '../../lib/index.js';
import { modernRpc } from '../era/modern-helpers.js';
import { call, resultOf, TASKS, taskCaps, taskServer, tasksRpc } from './task-fixture.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function created(server: ReturnType<typeof taskServer>['server'], name: string, args: Record<string, unknown> = {}, connId = 'c1'): Promise<string> {
  const result = resultOf(await server.handleMessage(call(1, name, args), { connId }));
  expect(result.resultType).toBe('task');
  return result.taskId as string;
}

async function get(server: ReturnType<typeof taskServer>['server'], taskId: string, connId = 'c1') {
  return server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId });
}

describe('declaration and creation', () => {
  test('server/discover declares the extension; a server without tasks does not', async () => {
    const { server } = taskServer();
    expect(resultOf(await server.handleMessage(modernRpc(1, 'server/discover'))).capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    const plain = createServer({ registry: new Registry().registerTool({ name: 'x', handler: () => 'x' }) });
    expect(resultOf(await plain.handleMessage(modernRpc(1, 'server/discover'))).capabilities).not.toHaveProperty('extensions');
  });

  test('a tool with taskSupport registered before createServer turns tasks on, and is listed with execution.taskSupport', async () => {
    const server = createServer({ registry: new Registry().registerTool({ name: 'job', taskSupport: 'optional', handler: () => 'x' }) });
    expect(resultOf(await server.handleMessage(modernRpc(1, 'server/discover'))).capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    const tools = resultOf(await server.handleMessage(modernRpc(2, 'tools/list'))).tools as Array<Record<string, unknown>>;
    expect(tools[0]).toMatchObject({ name: 'job', execution: { taskSupport: 'optional' } });
  });

  test('a declaring client gets a flat CreateTaskResult, and tasks/get right after finds the task working', async () => {
    const { server, clock } = taskServer({ ttlMs: 60_000, pollIntervalMs: 250 });
    const result = resultOf(await server.handleMessage(call(1, 'slow', { ms: 1000 })));
    expect(result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 250 });
    expect(result.createdAt).toMatch(ISO);
    expect(result.createdAt).toBe(new Date(clock.now()).toISOString());
    expect(result.taskId).toMatch(/^task-[A-Za-z0-9_-]{24}$/);
    for (const absent of ['task', 'result', 'error', 'inputRequests', 'requestState', 'ttl', 'pollInterval']) expect(result).not.toHaveProperty(absent);
    const got = resultOf(await get(server, result.taskId as string, 'default'));
    expect(got).toMatchObject({ resultType: 'complete', taskId: result.taskId, status: 'working' });
  });

  test('the result is inlined once completed, as the plain call would have answered, without related-task _meta', async () => {
    const { server, clock } = taskServer();
    const taskId = await created(server, 'slow', { ms: 1000 });
    await clock.advance(999);
    expect(resultOf(await get(server, taskId)).status).toBe('working');
    await clock.advance(1);
    const done = resultOf(await get(server, taskId));
    expect(done).toMatchObject({ status: 'completed', result: { resultType: 'complete', content: [{ type: 'text', text: 'slept 1000' }] } });
    expect((done.result as Record<string, unknown>)._meta).toBeUndefined();
    expect(done.lastUpdatedAt).toBe(new Date(clock.now()).toISOString());
  });

  test('a client that did not declare the extension gets the plain answer from an optional tool, -32021 from a required one', async () => {
    const { server, clock } = taskServer();
    const reply = server.handleMessage(call(1, 'slow', { ms: 5 }, taskCaps({ tasks: false })));
    await clock.advance(5);
    expect(resultOf(await reply)).toMatchObject({ resultType: 'complete', content: [{ text: 'slept 5' }] });
    expect(await server.handleMessage(call(2, 'must', {}, taskCaps({ tasks: false })))).toMatchObject({
      error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
    });
    expect(resultOf(await server.handleMessage(call(3, 'plain', { task: { ttl: 1 } })))).toMatchObject({ resultType: 'complete', content: [{ text: 'plain answer' }] });
  });

  test('tasks/* from a request that did not declare the extension: -32021; tasks/result and tasks/list do not exist: -32601', async () => {
    const { server } = taskServer();
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const reply = await server.handleMessage(tasksRpc(1, method, { taskId: 'x', inputResponses: {} }, taskCaps({ tasks: false })));
      expect(reply).toMatchObject({ error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } } });
    }
    for (const method of ['tasks/result', 'tasks/list']) {
      expect(await server.handleMessage(tasksRpc(1, method, { taskId: 'x' }))).toMatchObject({ error: { code: -32601 } });
    }
  });

  test('an unknown task id, or none, is -32602', async () => {
    const { server } = taskServer();
    expect(await get(server, 'task-nope')).toMatchObject({ error: { code: -32602, message: 'Failed to retrieve task: Task not found' } });
    expect(await server.handleMessage(tasksRpc(1, 'tasks/get', {}))).toMatchObject({ error: { code: -32602 } });
    expect(await server.handleMessage(tasksRpc(1, 'tasks/cancel', { taskId: 'task-nope' }))).toMatchObject({ error: { code: -32602 } });
    expect(await server.handleMessage(tasksRpc(1, 'tasks/update', { taskId: 'task-nope', inputResponses: {} }))).toMatchObject({ error: { code: -32602 } });
  });
});

describe('outcomes', () => {
  test('a ToolError is completed with isError; a crash is failed with a JSON-RPC error and no result', async () => {
    const { server, clock } = taskServer();
    const toolError = await created(server, 'tool_error');
    await clock.settle();
    expect(resultOf(await get(server, toolError))).toMatchObject({ status: 'completed', result: { isError: true, content: [{ text: 'it went wrong' }] } });
    const crash = await created(server, 'crash');
    await clock.settle();
    const failed = resultOf(await get(server, crash));
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603 } });
    expect(failed).not.toHaveProperty('result');
    expect(typeof (failed.error as { message: unknown }).message).toBe('string');
  });

  test('no progress or log notification is sent for a task', async () => {
    const { server, clock } = taskServer();
    const inbound = new Subject<unknown>();
    const out: Array<Record<string, unknown>> = [];
    server.connect('c1', inbound, { era: 'per-message' }).subscribe((m) => out.push(m as unknown as Record<string, unknown>));
    const request = call(1, 'chatty');
    (request.params as Record<string, unknown>)._meta = { ...((request.params as Record<string, Record<string, unknown>>)._meta), progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' };
    inbound.next(request);
    await clock.advance(10);
    expect(out.filter((m) => 'method' in m)).toEqual([]);
    expect(out).toHaveLength(1);
    expect((out[0]!.result as Record<string, unknown>).resultType).toBe('task');
  });
});

describe('input', () => {
  test('an elicit puts the task in input_required with its question; tasks/update answers it and the task completes', async () => {
    const { server, clock, ran } = taskServer();
    const taskId = await created(server, 'confirm');
    await clock.settle();
    const waiting = resultOf(await get(server, taskId));
    expect(waiting.status).toBe('input_required');
    const requests = waiting.inputRequests as Record<string, { method: string; params: Record<string, unknown> }>;
    const [key] = Object.keys(requests);
    expect(requests[key!]).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Sure?' } });
    const ack = resultOf(await server.handleMessage(tasksRpc(3, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { ok: true } } } }), { connId: 'c1' }));
    expect(ack).toEqual({ resultType: 'complete', _meta: expect.any(Object) });
    await clock.settle();
    expect(resultOf(await get(server, taskId))).toMatchObject({ status: 'completed', result: { content: [{ text: 'confirmed: {"ok":true}' }] } });
    expect(ran.steps).toEqual(['confirm answered accept']);
  });

  test('a partial answer keeps input_required with only the unanswered key; keys never come back', async () => {
    const { server, clock } = taskServer();
    const taskId = await created(server, 'two');
    await clock.settle();
    const keys = Object.keys(resultOf(await get(server, taskId)).inputRequests as object);
    expect(keys).toHaveLength(2);
    await server.handleMessage(tasksRpc(3, 'tasks/update', { taskId, inputResponses: { [keys[0]!]: { action: 'accept', content: { v: 'one' } } } }), { connId: 'c1' });
    const partial = resultOf(await get(server, taskId));
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests as object)).toEqual([keys[1]]);
    // The answered key again, an unknown key, and a malformed answer for the open one: all ignored.
    await server.handleMessage(
      tasksRpc(4, 'tasks/update', { taskId, inputResponses: { [keys[0]!]: { action: 'accept', content: { v: 'again' } }, stray: { action: 'accept' }, [keys[1]!]: { nope: 1 } } }),
      { connId: 'c1' },
    );
    expect(Object.keys(resultOf(await get(server, taskId)).inputRequests as object)).toEqual([keys[1]]);
    await server.handleMessage(tasksRpc(5, 'tasks/update', { taskId, inputResponses: { [keys[1]!]: { action: 'accept', content: { v: 'two' } } } }), { connId: 'c1' });
    await clock.settle();
    expect(resultOf(await get(server, taskId))).toMatchObject({ status: 'completed', result: { content: [{ text: 'a={"v":"one"} b={"v":"two"}' }] } });
  });

  test('racing updates answering the same key resume the handler once', async () => {
    const { server, clock, ran } = taskServer();
    const taskId = await created(server, 'confirm');
    await clock.settle();
    const [key] = Object.keys(resultOf(await get(server, taskId)).inputRequests as object);
    const update = (id: number, ok: boolean) => server.handleMessage(tasksRpc(id, 'tasks/update', { taskId, inputResponses: { [key!]: { action: 'accept', content: { ok } } } }), { connId: 'c1' });
    const acks = await Promise.all([update(10, true), update(11, false), update(12, false)]);
    for (const ack of acks) expect(resultOf(ack).resultType).toBe('complete');
    await clock.settle();
    expect(ran.steps).toEqual(['confirm answered accept']);
    expect(resultOf(await get(server, taskId))).toMatchObject({ result: { content: [{ text: 'confirmed: {"ok":true}' }] } });
  });

  test('inputResponses that are not an object, or too large, are -32602', async () => {
    const { server, clock } = taskServer();
    const taskId = await created(server, 'confirm');
    await clock.settle();
    expect(await server.handleMessage(tasksRpc(1, 'tasks/update', { taskId, inputResponses: [1] }), { connId: 'c1' })).toMatchObject({ error: { code: -32602 } });
    const huge = { k: { action: 'accept', content: { v: 'x'.repeat(600_000) } } };
    expect(await server.handleMessage(tasksRpc(2, 'tasks/update', { taskId, inputResponses: huge }), { connId: 'c1' })).toMatchObject({ error: { code: -32602 } });
    expect(resultOf(await get(server, taskId)).status).toBe('input_required');
  });
});

describe('cancel', () => {
  test('cancelling a working task aborts its handler, settles it cancelled, and its later result is never stored', async () => {
    const { server, clock, ran } = taskServer();
    const taskId = await created(server, 'slow', { ms: 1000 });
    await clock.advance(100);
    const ack = resultOf(await server.handleMessage(tasksRpc(3, 'tasks/cancel', { taskId }), { connId: 'c1' }));
    expect(Object.keys(ack).sort()).toEqual(['_meta', 'resultType']);
    expect(ran.aborts).toEqual(['task cancelled']);
    await clock.advance(2000);
    expect(resultOf(await get(server, taskId))).toMatchObject({ status: 'cancelled' });
    expect(ran.steps).toEqual(['slow started']);
  });

  test('cancelling a task waiting for input ends the wait; cancelling a finished task or twice is the same empty ack', async () => {
    const { server, clock, ran } = taskServer();
    const waiting = await created(server, 'confirm');
    await clock.settle();
    await server.handleMessage(tasksRpc(3, 'tasks/cancel', { taskId: waiting }), { connId: 'c1' });
    await clock.settle();
    expect(resultOf(await get(server, waiting))).toMatchObject({ status: 'cancelled' });
    expect(resultOf(await get(server, waiting))).not.toHaveProperty('inputRequests');
    expect(ran.aborts).toEqual(['confirm aborted']);
    const done = await created(server, 'slow', { ms: 1 });
    await clock.advance(1);
    for (const id of [4, 5]) expect(resultOf(await server.handleMessage(tasksRpc(id, 'tasks/cancel', { taskId: done }), { connId: 'c1' })).resultType).toBe('complete');
    expect(resultOf(await get(server, done)).status).toBe('completed');
  });
});

describe('ttl, bounds and owners', () => {
  test('a task is readable until its ttlMs, then forgotten (-32602), its handler stopped', async () => {
    const { server, clock, ran } = taskServer({ ttlMs: 5000 });
    const taskId = await created(server, 'slow', { ms: 60_000 });
    await clock.advance(4999);
    expect(resultOf(await get(server, taskId)).status).toBe('working');
    await clock.advance(1);
    expect(await get(server, taskId)).toMatchObject({ error: { code: -32602 } });
    expect(ran.aborts).toEqual(['task expired']);
    expect(server.stats()).toMatchObject({ tasks: 0, taskRuns: 0 });
  });

  test('an owner past maxTasksPerOwner is refused clearly while others are served; an expiry makes room', async () => {
    const { server, clock } = taskServer({ maxTasksPerOwner: 2, ttlMs: 1000 });
    await created(server, 'slow', { ms: 10_000 });
    await created(server, 'slow', { ms: 10_000 });
    const refused = resultOf(await server.handleMessage(call(1, 'slow', { ms: 10_000 }), { connId: 'c1' }));
    expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('limit of 2 tasks') }] });
    await created(server, 'slow', { ms: 10_000 }, 'c2');
    await clock.advance(1000);
    await created(server, 'slow', { ms: 10_000 });
  });

  test("another owner's task id is not found, exactly as an unknown one: read, answer and cancel", async () => {
    const { server, clock } = taskServer();
    const alice = makePrincipal({ subject: 'alice', scopes: [] });
    const bob = makePrincipal({ subject: 'bob', scopes: [] });
    const result = resultOf(await server.handleMessage(call(1, 'confirm'), { connId: 'a', principal: alice }));
    const taskId = result.taskId as string;
    await clock.settle();
    for (const [method, params] of [['tasks/get', { taskId }], ['tasks/update', { taskId, inputResponses: { 'rxmcp.1': { action: 'accept', content: { ok: true } } } }], ['tasks/cancel', { taskId }]] as const) {
      expect(await server.handleMessage(tasksRpc(2, method, params), { connId: 'b', principal: bob })).toMatchObject({
        error: { code: -32602, message: 'Failed to retrieve task: Task not found' },
      });
    }
    // Alice on another connection is the same owner: her principal, not her connection.
    expect(resultOf(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId }), { connId: 'a2', principal: alice })).status).toBe('input_required');
  });

  test('server.close() stops every task handler', async () => {
    const { server, clock, ran } = taskServer();
    await created(server, 'slow', { ms: 10_000 });
    server.close();
    await clock.settle();
    expect(ran.aborts).toEqual(['task closed']);
    expect(clock.pending).toBe(0);
  });
});
