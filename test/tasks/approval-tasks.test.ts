/**
 * Approvals as tasks (2026-07-28, a request that declared the tasks
 * extension and form elicitation), on a TestClock: the ask is a task in
 * input_required carrying the approval form; an approval through
 * tasks/update runs the tool once (racing approvals included); a decline,
 * the timeout and an eviction are the deny as the task's result; the caps
 * count approval tasks together with MRTR tickets; a cancel frees the place.
 */
import { describe, expect, test } from 'vitest';
import { createServer, Registry, type ServerOptions } from '../../lib/index.js';
import { TestClock } from '../../testing/index.js';
import { call, resultOf, taskCaps, tasksRpc } from './task-fixture.js';

function approvalServer(more: Partial<ServerOptions> = {}) {
  const clock = new TestClock();
  const runs: string[] = [];
  const registry = new Registry().registerTool({
    name: 'wipe',
    sensitive: true,
    handler: async ({ disk }, ctx) => {
      runs.push(`wiped ${String(disk)}`);
      await ctx.sleep(10);
      return `wiped ${String(disk)}`;
    },
  });
  const server = createServer({ registry, scheduler: clock, authorizer: (name) => (name === 'wipe' ? { ask: 'Wipe the disk?' } : 'allow'), tasks: true, approvalTtlMs: 60_000, ...more });
  return { server, clock, runs };
}

const approve = (approve: boolean) => ({ action: 'accept', content: { approve } });

async function askTask(server: ReturnType<typeof approvalServer>['server'], connId = 'c1', disk = 'd1'): Promise<string> {
  const created = resultOf(await server.handleMessage(call(1, 'wipe', { disk }), { connId }));
  expect(created).toMatchObject({ resultType: 'task', status: 'working' });
  return created.taskId as string;
}

describe('approvals as tasks', () => {
  test('the ask is a task waiting with the approval form; approving through tasks/update runs the tool once', async () => {
    const { server, clock, runs } = approvalServer();
    const taskId = await askTask(server);
    const waiting = resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'c1' }));
    expect(waiting).toMatchObject({
      status: 'input_required',
      inputRequests: { 'rxmcp.approve': { method: 'elicitation/create', params: { mode: 'form', message: 'Wipe the disk?' } } },
    });
    expect(server.stats()).toMatchObject({ inFlight: 0, outstandingRequests: 0 });
    expect(runs).toEqual([]);
    const update = (id: number) => server.handleMessage(tasksRpc(id, 'tasks/update', { taskId, inputResponses: { 'rxmcp.approve': approve(true) } }), { connId: 'c1' });
    await Promise.all([update(3), update(4), update(5)]);
    await clock.advance(10);
    expect(runs).toEqual(['wiped d1']);
    expect(resultOf(await server.handleMessage(tasksRpc(6, 'tasks/get', { taskId }), { connId: 'c1' }))).toMatchObject({
      status: 'completed',
      result: { content: [{ text: 'wiped d1' }] },
    });
  });

  test('a decline is the deny as the result; the tool never runs', async () => {
    const { server, clock, runs } = approvalServer();
    const taskId = await askTask(server);
    await server.handleMessage(tasksRpc(2, 'tasks/update', { taskId, inputResponses: { 'rxmcp.approve': { action: 'decline' } } }), { connId: 'c1' });
    await clock.settle();
    const done = resultOf(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId }), { connId: 'c1' }));
    expect(done).toMatchObject({ status: 'completed', result: { isError: true } });
    expect(JSON.parse((done.result as { content: Array<{ text: string }> }).content[0]!.text)).toMatchObject({ decision: 'ask', detail: 'declined' });
    expect(runs).toEqual([]);
  });

  test('silence is not consent: unanswered at approvalTtlMs it is the timed-out deny, and a late approval runs nothing', async () => {
    const { server, clock, runs } = approvalServer({ approvalTtlMs: 5000 });
    const taskId = await askTask(server);
    await clock.advance(4999);
    expect(resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId }), { connId: 'c1' })).status).toBe('input_required');
    await clock.advance(1);
    const done = resultOf(await server.handleMessage(tasksRpc(3, 'tasks/get', { taskId }), { connId: 'c1' }));
    expect(JSON.parse((done.result as { content: Array<{ text: string }> }).content[0]!.text)).toMatchObject({ detail: 'timed out' });
    await server.handleMessage(tasksRpc(4, 'tasks/update', { taskId, inputResponses: { 'rxmcp.approve': approve(true) } }), { connId: 'c1' });
    await clock.advance(100);
    expect(runs).toEqual([]);
  });

  test('approval tasks count with MRTR tickets under one cap per owner; a cancel gives the place back', async () => {
    const { server, clock } = approvalServer({ maxParkedElicitations: 2, maxParkedElicitationsPerPeer: 2, maxParkedElicitationsTotal: 4 });
    // An MRTR round (no tasks declared) takes a ticket for c1.
    const round = resultOf(await server.handleMessage(call(1, 'wipe', { disk: 'r' }, taskCaps({ tasks: false })), { connId: 'c1' }));
    expect(round.resultType).toBe('input_required');
    const first = await askTask(server, 'c1', 'a');
    const refused = resultOf(await server.handleMessage(call(2, 'wipe', { disk: 'b' }), { connId: 'c1' }));
    expect(refused).toMatchObject({ isError: true });
    expect(JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ decision: 'ask', detail: 'too many elicitations pending' });
    await server.handleMessage(tasksRpc(3, 'tasks/cancel', { taskId: first }), { connId: 'c1' });
    await clock.settle();
    await askTask(server, 'c1', 'c');
  });

  test("a fairer newcomer evicts the fullest owner's oldest approval task: the deny with the eviction's detail", async () => {
    const { server, clock } = approvalServer({ maxParkedElicitations: 2, maxParkedElicitationsPerPeer: 2, maxParkedElicitationsTotal: 2 });
    const oldest = await askTask(server, 'hog', 'a');
    await askTask(server, 'hog', 'b');
    await askTask(server, 'newcomer', 'c');
    await clock.settle();
    const evicted = resultOf(await server.handleMessage(tasksRpc(2, 'tasks/get', { taskId: oldest }), { connId: 'hog' }));
    expect(evicted.status).toBe('completed');
    expect(JSON.parse((evicted.result as { content: Array<{ text: string }> }).content[0]!.text)).toMatchObject({ detail: 'too many elicitations pending on this server' });
  });

  test("tasks.approvals 'round' keeps the MRTR round even for a request that declared tasks", async () => {
    const { server } = approvalServer({ tasks: { approvals: 'round' } });
    expect(resultOf(await server.handleMessage(call(1, 'wipe', { disk: 'x' })))).toMatchObject({ resultType: 'input_required', inputRequests: { 'rxmcp.approve': {} } });
  });
});
