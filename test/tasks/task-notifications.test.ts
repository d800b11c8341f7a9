/**
 * notifications/tasks on a subscriptions/listen stream (2026-07-28): a
 * stream naming task ids hears each change of the caller's own tasks, as
 * tasks/get would show it, tagged with the subscription; never another
 * owner's; -32021 for a request that did not declare the extension.
 */
import { Subject } from 'rxjs';
import { expect, test } from 'vitest';
import { modernRpc } from '../era/modern-helpers.js';
import { call, resultOf, taskCaps, taskServer, tasksRpc } from './task-fixture.js';

function connection(server: ReturnType<typeof taskServer>['server'], connId: string) {
  const inbound = new Subject<unknown>();
  const out: Array<Record<string, any>> = [];
  server.connect(connId, inbound, { era: 'per-message' }).subscribe((m) => out.push(m as unknown as Record<string, any>));
  return { inbound, out, notes: () => out.filter((m) => m.method === 'notifications/tasks').map((m) => m.params) };
}

test('a listen naming a task hears its changes, as tasks/get shows them, tagged with the subscription', async () => {
  const { server, clock } = taskServer();
  const { inbound, out, notes } = connection(server, 'c1');
  inbound.next(call(1, 'confirm'));
  await clock.settle();
  const taskId = out.find((m) => m.id === 1)!.result.taskId as string;
  inbound.next(modernRpc('listen-1', 'subscriptions/listen', { notifications: { taskIds: [taskId, 'task-not-mine'] } }, { capabilities: taskCaps() }));
  await clock.settle();
  const ack = out.find((m) => m.method === 'notifications/subscriptions/acknowledged')!;
  expect(ack.params.notifications).toEqual({ taskIds: [taskId, 'task-not-mine'] });
  const key = Object.keys(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'c1' })).inputRequests as object)[0]!;
  inbound.next(tasksRpc(3, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { ok: true } } } }));
  await clock.settle();
  const statuses = notes().map((n) => n.status);
  expect(statuses).toEqual(['working', 'completed']);
  expect(notes().at(-1)).toMatchObject({ taskId, status: 'completed', result: { content: [{ text: 'confirmed: {"ok":true}' }] } });
  expect(notes().at(-1)._meta).toEqual({ 'io.modelcontextprotocol/subscriptionId': 'listen-1' });
});

test("another owner's listen naming the task hears nothing of it", async () => {
  const { server, clock } = taskServer();
  const owner = connection(server, 'c1');
  const other = connection(server, 'c2');
  owner.inbound.next(call(1, 'slow', { ms: 100 }));
  await clock.settle();
  const taskId = owner.out.find((m) => m.id === 1)!.result.taskId as string;
  other.inbound.next(modernRpc('l', 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, { capabilities: taskCaps() }));
  owner.inbound.next(modernRpc('l', 'subscriptions/listen', { notifications: { taskIds: [taskId] } }, { capabilities: taskCaps() }));
  await clock.advance(100);
  expect(owner.notes().map((n) => n.status)).toEqual(['completed']);
  expect(other.notes()).toEqual([]);
});

test('taskIds from a request that did not declare the extension: -32021; a bad taskIds: -32602', async () => {
  const { server } = taskServer();
  expect(await server.handleMessage(modernRpc(1, 'subscriptions/listen', { notifications: { taskIds: ['t'] } }, { capabilities: taskCaps({ tasks: false }) }))).toMatchObject({
    error: { code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } },
  });
  expect(await server.handleMessage(modernRpc(2, 'subscriptions/listen', { notifications: { taskIds: [7] } }, { capabilities: taskCaps() }))).toMatchObject({ error: { code: -32602 } });
});
