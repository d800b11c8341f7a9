/**
 * The `afterMs` policy on a TestClock: a call that answers within it is a
 * plain call (no task ever stored); one that does not becomes a task at that
 * very frame, its handler going on under it; an input round asked before is
 * an ordinary MRTR round; a request cancelled before stops the handler.
 */
import { describe, expect, test } from 'vitest';
import { createServer, Registry } from '../../lib/index.js';
import { TestClock } from '../../testing/index.js';
import { modernRpc } from '../era/modern-helpers.js';
import { call, resultOf, taskServer, tasksRpc } from './task-fixture.js';

describe('tasks.afterMs', () => {
  test('a call answering within afterMs is answered plainly, and no task is stored', async () => {
    const { server, clock } = taskServer({ afterMs: 100 });
    const reply = server.handleMessage(call(1, 'slow', { ms: 99 }));
    await clock.advance(99);
    expect(resultOf(await reply)).toMatchObject({ resultType: 'complete', content: [{ text: 'slept 99' }] });
    expect(server.stats()).toMatchObject({ tasks: 0, taskRuns: 0 });
    expect(clock.pending).toBe(0);
  });

  test('a call still running at afterMs becomes a task at that frame; its result is stored when it ends', async () => {
    const { server, clock, ran } = taskServer({ afterMs: 100 });
    let answered = false;
    const reply = server.handleMessage(call(1, 'slow', { ms: 500 })).then((r) => {
      answered = true;
      return r;
    });
    await clock.advance(99);
    expect(answered).toBe(false);
    await clock.advance(1);
    const result = resultOf(await reply);
    expect(result).toMatchObject({ resultType: 'task', status: 'working' });
    expect(result.createdAt).toBe(new Date(clock.now()).toISOString());
    await clock.advance(400);
    expect(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId: result.taskId })))).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'slept 500' }] },
    });
    expect(ran.steps).toEqual(['slow started', 'slow done']);
  });

  test("a tool's own taskAfterMs wins over the server's", async () => {
    const clock = new TestClock();
    const registry = new Registry().registerTool({
      name: 'quick_or_task',
      taskSupport: 'optional',
      taskAfterMs: 10,
      handler: async (_args, ctx) => {
        await ctx.sleep(20);
        return 'done';
      },
    });
    const server = createServer({ registry, scheduler: clock, tasks: { afterMs: 1000 } });
    const reply = server.handleMessage(call(1, 'quick_or_task'));
    await clock.advance(10);
    expect(resultOf(await reply).resultType).toBe('task');
  });

  test('an input asked before afterMs is an MRTR round; the retry with the answer goes on and becomes a task', async () => {
    const clock = new TestClock();
    const registry = new Registry().registerTool({
      name: 'ask_then_work',
      taskSupport: 'required',
      taskAfterMs: 50,
      handler: async (_args, ctx) => {
        const { who } = await ctx.askInputs({ who: { method: 'elicitation/create', params: { message: 'Who?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } } } });
        await ctx.sleep(200);
        return `hello ${String(who.content?.n)}`;
      },
    });
    const server = createServer({ registry, scheduler: clock });
    const round = resultOf(await server.handleMessage(call(1, 'ask_then_work')));
    expect(round).toMatchObject({ resultType: 'input_required', inputRequests: { who: { method: 'elicitation/create' } } });
    expect(round).not.toHaveProperty('taskId');
    expect(server.stats().tasks).toBe(0);
    const retry = call(2, 'ask_then_work');
    Object.assign(retry.params as object, { inputResponses: { who: { action: 'accept', content: { n: 'Ada' } } }, requestState: round.requestState });
    const reply = server.handleMessage(retry);
    await clock.advance(50);
    const task = resultOf(await reply);
    expect(task).toMatchObject({ resultType: 'task' });
    expect(task).not.toHaveProperty('requestState');
    await clock.advance(150);
    expect(resultOf(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId: task.taskId })))).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'hello Ada' }] },
    });
  });

  test('a request cancelled before afterMs stops its handler, and no task is ever made', async () => {
    const { server, clock, ran } = taskServer({ afterMs: 100 });
    const controller = new AbortController();
    const reply = server.handleMessage(call(1, 'slow', { ms: 500 }), { signal: controller.signal }).catch((error: Error) => error.name);
    await clock.advance(40);
    controller.abort();
    expect(await reply).toBe('CallerGoneError');
    await clock.advance(1000);
    expect(ran.aborts).toHaveLength(1);
    expect(ran.steps).toEqual(['slow started']);
    expect(server.stats()).toMatchObject({ tasks: 0, taskRuns: 0 });
  });

  test('a plain call on a server with tasks off ignores taskSupport', async () => {
    const clock = new TestClock();
    const registry = new Registry();
    const server = createServer({ registry, scheduler: clock });
    registry.registerTool({ name: 'late', taskSupport: 'required', handler: () => 'ran plainly' });
    expect(resultOf(await server.handleMessage(call(1, 'late')))).toMatchObject({ content: [{ text: 'ran plainly' }] });
    expect(resultOf(await server.handleMessage(modernRpc(2, 'server/discover'))).capabilities).not.toHaveProperty('extensions');
  });
});
