/**
 * A task only its connection could reach (the connection is its owner: no
 * principal, no peer, as on stdio) ends with the connection: its handler is
 * stopped and it is cancelled. One whose owner outlives the connection (a
 * peer or a principal, as on HTTP) goes on, and can be read from another
 * connection of that owner.
 */
import { Subject } from 'rxjs';
import { expect, test } from 'vitest';
import { call, resultOf, taskServer, tasksRpc } from './task-fixture.js';

async function taskOn(server: ReturnType<typeof taskServer>['server'], clock: ReturnType<typeof taskServer>['clock'], peer?: string) {
  const inbound = new Subject<unknown>();
  const out: Array<Record<string, any>> = [];
  const subscription = server.connect('conn-1', inbound, { era: 'per-message', ...(peer === undefined ? {} : { peer }) }).subscribe((m) => out.push(m as unknown as Record<string, any>));
  inbound.next(call(1, 'slow', { ms: 60_000 }));
  await clock.settle();
  const taskId = out.find((m) => m.id === 1)!.result.taskId as string;
  return { inbound, subscription, taskId };
}

test('a connection-owned task is cancelled, its handler stopped, when its connection goes', async () => {
  const { server, clock, ran } = taskServer();
  const { inbound, taskId } = await taskOn(server, clock);
  expect(server.stats()).toMatchObject({ taskRuns: 1 });
  inbound.complete();
  await clock.settle();
  expect(ran.aborts).toEqual(['task cancelled']);
  expect(server.stats()).toMatchObject({ taskRuns: 0 });
  // Nobody else can read it: its owner was the connection (read here through a fresh connection with that id).
  expect(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'conn-1' })).status).toBe('cancelled');
});

test('a task whose owner is a peer outlives its connection and is read from another one', async () => {
  const { server, clock, ran } = taskServer();
  const { inbound, taskId } = await taskOn(server, clock, 'addr:10.0.0.7');
  inbound.complete();
  await clock.settle();
  expect(ran.aborts).toEqual([]);
  const reader = new Subject<unknown>();
  const out: Array<Record<string, any>> = [];
  server.connect('conn-2', reader, { era: 'per-message', peer: 'addr:10.0.0.7' }).subscribe((m) => out.push(m as unknown as Record<string, any>));
  reader.next(tasksRpc(2, 'tasks/get', { taskId }));
  await clock.settle();
  expect(out.find((m) => m.id === 2)!.result.status).toBe('working');
});
