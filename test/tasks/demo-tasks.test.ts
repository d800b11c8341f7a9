/**
 * The demo's tasks, on a TestClock: `slow_task` answers plainly within a
 * second, and becomes a task past it for a client that takes tasks (polled to
 * its result); `delete_note` asks for its approval as a task, which
 * tasks/update answers.
 */
import { expect, test } from 'vitest';
import { createDemoServer } from '../../examples/demo/server.js';
import { TestClock } from '../../testing/index.js';
import { call, resultOf, tasksRpc } from './task-fixture.js';

test('slow_task: plain within a second, a task past it, polled to its result', async () => {
  const clock = new TestClock();
  const server = createDemoServer({ scheduler: clock });
  const quick = server.handleMessage(call(1, 'slow_task', { ms: 300 }));
  await clock.advance(300);
  expect(resultOf(await quick)).toMatchObject({ resultType: 'complete', content: [{ text: 'Waited 300 ms' }] });
  const long = server.handleMessage(call(2, 'slow_task', { ms: 5000 }));
  await clock.advance(1000);
  const task = resultOf(await long);
  expect(task).toMatchObject({ resultType: 'task', status: 'working' });
  await clock.advance(4000);
  expect(resultOf(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId: task.taskId })))).toMatchObject({
    status: 'completed',
    result: { content: [{ text: 'Waited 5000 ms' }] },
  });
});

test('delete_note: its approval waits as a task, answered by tasks/update', async () => {
  const clock = new TestClock();
  const server = createDemoServer({ scheduler: clock });
  const task = resultOf(await server.handleMessage(call(1, 'delete_note', { id: '2' })));
  expect(task.resultType).toBe('task');
  const waiting = resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId: task.taskId })));
  expect(waiting).toMatchObject({ status: 'input_required', inputRequests: { 'rxmcp.approve': { method: 'elicitation/create' } } });
  await server.handleMessage(tasksRpc(3, 'tasks/update', { taskId: task.taskId, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } }));
  await clock.settle();
  const done = resultOf(await server.handleMessage(tasksRpc(4, 'tasks/get', { taskId: task.taskId })));
  expect(done.status).toBe('completed');
  expect(JSON.stringify(done.result)).toContain('2');
  expect((done.result as { isError?: boolean }).isError).not.toBe(true);
});
