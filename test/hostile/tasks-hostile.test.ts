/**
 * A hostile client against the tasks extension: guessed and foreign task
 * ids, answers that are huge or nested a million deep, replayed updates, and
 * 100,000 task creations from one client. Every one gets a clear answer, the
 * store stays within its bounds, and other clients are served.
 */
import { expect, test } from 'vitest';
import { call, resultOf, taskServer, tasksRpc } from '../tasks/task-fixture.js';

test('guessed task ids are -32602, with the same message as a real id of another owner', async () => {
  const { server, clock } = taskServer();
  const real = resultOf(await server.handleMessage(call(1, 'slow', { ms: 10_000 }), { connId: 'victim' })).taskId as string;
  await clock.settle();
  const messages = new Set<string>();
  for (const guess of [real, `${real.slice(0, -1)}A`, 'task-AAAAAAAAAAAAAAAAAAAAAAAA', 'task-1', '../../etc', 'x'.repeat(256)]) {
    const reply = (await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId: guess }), { connId: 'attacker' })) as { error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32602);
    messages.add(reply.error.message);
  }
  expect([...messages]).toEqual(['Failed to retrieve task: Task not found']);
  expect(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId: 'x'.repeat(257) }), { connId: 'attacker' })).toMatchObject({ error: { code: -32602 } });
  expect(resultOf(await server.handleMessage(tasksRpc(4, 'tasks/get', { taskId: real }), { connId: 'victim' })).status).toBe('working');
});

test('answers nested a million deep or of 2 MB are refused at once; the task still waits for a real answer', async () => {
  const { server, clock } = taskServer();
  const taskId = resultOf(await server.handleMessage(call(1, 'confirm'), { connId: 'c1' })).taskId as string;
  await clock.settle();
  let deep: unknown = 'bottom';
  for (let i = 0; i < 1_000_000; i += 1) deep = [deep];
  const key = Object.keys(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'c1' })).inputRequests as object)[0]!;
  expect(await server.handleMessage(tasksRpc(3, 'tasks/update', { taskId, inputResponses: { [key]: deep } }), { connId: 'c1' })).toMatchObject({ error: { code: -32602 } });
  const wide = { [key]: { action: 'accept', content: { ok: true, pad: 'p'.repeat(2_000_000) } } };
  expect(await server.handleMessage(tasksRpc(4, 'tasks/update', { taskId, inputResponses: wide }), { connId: 'c1' })).toMatchObject({ error: { code: -32602 } });
  expect(resultOf(await server.handleMessage(tasksRpc(5, 'tasks/get', { taskId }), { connId: 'c1' })).status).toBe('input_required');
});

test('a replayed update after the answer is taken changes nothing: the handler resumed once, the result stands', async () => {
  const { server, clock, ran } = taskServer();
  const taskId = resultOf(await server.handleMessage(call(1, 'confirm'), { connId: 'c1' })).taskId as string;
  await clock.settle();
  const key = Object.keys(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'c1' })).inputRequests as object)[0]!;
  const update = tasksRpc(3, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } });
  await server.handleMessage(update, { connId: 'c1' });
  await clock.settle();
  const done = resultOf(await server.handleMessage(tasksRpc(4, 'tasks/get', { taskId }), { connId: 'c1' }));
  for (let i = 0; i < 100; i += 1) expect(resultOf(await server.handleMessage(update, { connId: 'c1' })).resultType).toBe('complete');
  await clock.settle();
  expect(ran.steps).toEqual(['confirm answered accept']);
  expect(resultOf(await server.handleMessage(tasksRpc(5, 'tasks/get', { taskId }), { connId: 'c1' }))).toEqual(done);
});

test('100,000 task creations from one client: its cap is held, the rest refused clearly, another client still served', async () => {
  const { server, clock } = taskServer({ maxTasksPerOwner: 1000, maxTasks: 5000 });
  let created = 0;
  let refused = 0;
  for (let i = 0; i < 100_000; i += 1) {
    const result = resultOf(await server.handleMessage(call(i, 'slow', { ms: 3_600_000 }), { connId: 'flood' }));
    if (result.resultType === 'task') created += 1;
    else {
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('the task could not be stored (this caller holds its limit of 1000 tasks)') }] });
      refused += 1;
    }
  }
  expect(created).toBe(1000);
  expect(refused).toBe(99_000);
  expect(server.stats()).toMatchObject({ tasks: 1000, taskRuns: 1000 });
  expect(resultOf(await server.handleMessage(call('ok', 'slow', { ms: 1 }), { connId: 'neighbour' })).resultType).toBe('task');
  server.close();
  await clock.settle();
  expect(server.stats()).toMatchObject({ tasks: 0, taskRuns: 0 });
}, 120_000);
