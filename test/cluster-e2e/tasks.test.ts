/**
 * Tasks (io.modelcontextprotocol/tasks) across a real cluster: three node
 * processes on one redis-server, then on a 3-master Redis Cluster (the task
 * scripts' keys in one slot, the doorbell on sharded pub/sub), every request a 2026-07-28 POST through the
 * round-robin proxy (declaring the extension, with its Mcp-Method / Mcp-Name
 * headers), steered to a chosen node by a test header and checked against
 * the proxy's own record of the upstream that took it. What the tools did is
 * read from the example's ledger in Redis (starts, runs, aborts per key, by
 * node), so "ran once, on A" is the cluster's word, not a reply's.
 *
 * - created on A, read on B at once, answered on C, the handler resumed on A, the result read on B;
 * - tasks/cancel on B stops the run on A (its ctx.signal aborted), `cancelled` on every node;
 * - an approval as a task: created on A, approved on B (and, racing, on C), the tool runs once;
 * - SIGKILL of the node running tasks (working, waiting for an answer, an approval waiting):
 *   `failed` ("the node running the task is gone") on the others within one lease (the node's
 *   --task-lease-ms), never `working` forever; answers and approvals sent after run nothing.
 * Real time, bounded: each topology takes about ten seconds.
 */
import type { IncomingMessage } from 'node:http';
import { beforeAll, describe, expect, test } from 'vitest';
import type { ProxyHooks } from '../../examples/cluster/proxy.js';
import { clusterPerFile, type Cluster } from '../helpers/cluster-harness.js';
import { modernPost } from '../http-modern/helpers.js';
import { textOf, until } from './clients.js';

const TASKS = 'io.modelcontextprotocol/tasks';
/** The task store's lease on every node: a dead node's tasks are failed within it. */
const LEASE_MS = 1_500;
/** What every request declares: the tasks extension, and form elicitation (approvals become tasks). */
const CAPS = { extensions: { [TASKS]: {} }, elicitation: {} };
/** The empty ack of tasks/update and tasks/cancel as 2026-07-28 sends it: nothing but the result type and the server's _meta. */
const ACK = { resultType: 'complete', _meta: expect.any(Object) as unknown };
const RUNNER_GONE = { code: -32603, message: 'Internal error: the node running the task is gone' };

/** The upstream each steered request went to, by the test's request tag, as the proxy reports it. */
const tookIt = new Map<string, number>();
const hooks: ProxyHooks = {
  steer: (req: IncomingMessage) => {
    const node = req.headers['x-e2e-node'];
    return typeof node === 'string' ? node.charCodeAt(0) - 97 : undefined;
  },
  sent: (req: IncomingMessage, index: number) => {
    const tag = req.headers['x-e2e-request'];
    if (typeof tag === 'string') tookIt.set(tag, index);
  },
};

/** The cluster the running describe block started (each block its own: one Redis, then a Redis Cluster). */
let cluster: Cluster;

interface TaskView {
  taskId: string;
  status: string;
  resultType?: string;
  inputRequests?: Record<string, { method: string; params: { message?: string } }>;
  result?: { content?: unknown; isError?: boolean };
  error?: { code: number; message: string };
}

interface Reply {
  result?: TaskView & Record<string, unknown>;
  error?: { code: number; message: string };
}

let nextId = 0;

/** One 2026-07-28 request through the proxy, steered to `node`; asserts the proxy sent it there. */
async function rpc(node: 'a' | 'b' | 'c', method: string, params: Record<string, unknown>): Promise<Reply> {
  const id = ++nextId;
  const tag = `r${id}`;
  // tasks/* name their task in Mcp-Name (tools/call's tool name is set by modernPost).
  const name = method.startsWith('tasks/') ? { 'mcp-name': String(params.taskId) } : {};
  const response = await modernPost(cluster.url, id, method, params, { capabilities: CAPS, headers: { ...name, 'x-e2e-node': node, 'x-e2e-request': tag } });
  const body = await response.text();
  expect(tookIt.get(tag), `${method} was sent to node ${node}`).toBe(node.charCodeAt(0) - 97);
  // A JSON answer, or the response on an SSE stream's last data line.
  const json = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? body.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).pop()
    : body;
  if (response.status !== 200 || json === undefined) throw new Error(`${method} on ${node}: HTTP ${response.status} ${body.slice(0, 300)}`);
  return JSON.parse(json) as Reply;
}

async function getTask(node: 'a' | 'b' | 'c', taskId: string): Promise<TaskView> {
  const reply = await rpc(node, 'tasks/get', { taskId });
  if (reply.result === undefined) throw new Error(`tasks/get on ${node}: ${JSON.stringify(reply.error)}`);
  return reply.result;
}

async function createTask(node: 'a' | 'b' | 'c', name: string, args: Record<string, unknown>): Promise<string> {
  const reply = await rpc(node, 'tools/call', { name, arguments: args });
  expect(reply.result).toMatchObject({ resultType: 'task', status: 'working' });
  return reply.result!.taskId;
}

const parsed = (task: TaskView) => JSON.parse(textOf(task.result)) as Record<string, unknown>;

describe.each([
  ['one Redis', false],
  ['a 3-master Redis Cluster', true],
])('tasks across three nodes on %s (Redis task store, through the proxy)', (_topology, redisCluster) => {
  const started = clusterPerFile({ redisCluster, nodes: 3, nodeArgs: ['--task-lease-ms', String(LEASE_MS)], proxyHooks: hooks });
  beforeAll(() => {
    cluster = started;
  });

  test('created on A, found on B at once, answered on C: the handler resumes on A and its result is read on B; it ran once', async () => {
    const key = 'confirm-1';
    const taskId = await createTask('a', 'confirm_job', { key });
    // Stored before the answer: another node finds it with no wait.
    expect((await getTask('b', taskId)).taskId).toBe(taskId);
    const asked = await until(() => getTask('b', taskId), (task) => task.status === 'input_required');
    const keys = Object.keys(asked.inputRequests ?? {});
    expect(keys).toHaveLength(1);
    expect(asked.inputRequests![keys[0]!]).toMatchObject({ method: 'elicitation/create', params: { message: `Run job ${key}?` } });
    expect(await cluster.ledger.starts(key)).toEqual(['a']);
    expect(await cluster.ledger.runs(key)).toEqual([]);

    const answeredAt = Date.now();
    expect((await rpc('c', 'tasks/update', { taskId, inputResponses: { [keys[0]!]: { action: 'accept', content: { confirm: true } } } })).result).toEqual(ACK);
    const done = await until(() => getTask('b', taskId), (task) => task.status === 'completed');
    const resumedMs = Date.now() - answeredAt;
    // At the latest A's next renewal (every lease/3) drains the answer from the task's mailbox; the doorbell is sooner.
    expect(resumedMs).toBeLessThan(LEASE_MS / 3 + 500);
    expect(parsed(done)).toEqual({ node: 'a', key, confirmed: true, runs: 1 });
    // The same result on every node, and the tool ran once, on A.
    for (const node of ['a', 'c'] as const) expect((await getTask(node, taskId)).result).toEqual(done.result);
    expect(await cluster.ledger.starts(key)).toEqual(['a']);
    expect(await cluster.ledger.runs(key)).toEqual(['a']);
    console.info(`tasks e2e: answered on C -> completed on B in ${resumedMs} ms`);
  }, 20_000);

  test('tasks/cancel on B stops the run on A (its ctx.signal aborted); cancelled on every node, never completed', async () => {
    const key = 'cancel-1';
    const taskId = await createTask('a', 'slow_job', { key, ms: 20_000 });
    await until(() => cluster.ledger.starts(key), (starts) => starts.length === 1);
    expect(await cluster.ledger.starts(key)).toEqual(['a']);
    expect((await getTask('c', taskId)).status).toBe('working');

    const cancelledAt = Date.now();
    expect((await rpc('b', 'tasks/cancel', { taskId })).result).toEqual(ACK);
    const aborts = await until(() => cluster.ledger.aborts(key), (seen) => seen.length > 0);
    const stoppedMs = Date.now() - cancelledAt;
    expect(aborts).toEqual(['a']);
    // As an answer: by the doorbell, or at A's next renewal at the latest.
    expect(stoppedMs).toBeLessThan(LEASE_MS / 3 + 500);
    for (const node of ['a', 'b', 'c'] as const) expect((await getTask(node, taskId)).status).toBe('cancelled');
    // Idempotent, and nothing ran: one start, one abort, no run.
    expect((await rpc('c', 'tasks/cancel', { taskId })).result).toEqual(ACK);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await cluster.ledger.starts(key)).toEqual(['a']);
    expect(await cluster.ledger.aborts(key)).toEqual(['a']);
    expect(await cluster.ledger.runs(key)).toEqual([]);
    expect((await getTask('b', taskId)).status).toBe('cancelled');
    console.info(`tasks e2e: cancel on B -> handler aborted on A in ${stoppedMs} ms`);
  }, 20_000);

  test('an approval as a task: created on A, approved on B and C at once, the tool runs exactly once (on A), the result readable anywhere', async () => {
    const note = 'task-approval';
    const added = await rpc('c', 'tools/call', { name: 'add_note', arguments: { id: note, text: 'to delete' } });
    expect(textOf(added.result)).toBe(`Added note ${note} on c`);
    const taskId = await createTask('a', 'delete_note', { id: note });
    const asked = await until(() => getTask('b', taskId), (task) => task.status === 'input_required');
    expect(Object.keys(asked.inputRequests ?? {})).toEqual(['rxmcp.approve']);
    expect(asked.inputRequests!['rxmcp.approve']!.method).toBe('elicitation/create');
    // Nothing runs before the approval.
    expect(await cluster.ledger.runs(`delete.${note}`)).toEqual([]);
    expect(await cluster.ledger.note(note)).toBe('to delete');

    const approve = { taskId, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } };
    const acks = await Promise.all([rpc('b', 'tasks/update', approve), rpc('c', 'tasks/update', approve)]);
    expect(acks.map((ack) => ack.result)).toEqual([ACK, ACK]);
    const done = await until(() => getTask('c', taskId), (task) => task.status === 'completed');
    expect(textOf(done.result)).toBe(`Deleted note ${note} on a`);
    expect(done.result?.isError).toBeUndefined();
    for (const node of ['a', 'b'] as const) expect((await getTask(node, taskId)).result).toEqual(done.result);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await cluster.ledger.runs(`delete.${note}`)).toEqual(['a']);
    expect(await cluster.ledger.note(note)).toBeUndefined();
  }, 20_000);

  test('SIGKILL of the node running tasks: the others answer failed ("the node running the task is gone") within one lease, never working forever; nothing runs after', async () => {
    // Node C holds three tasks: one working, one whose handler waits for an answer, one approval waiting.
    const key = 'killed-1';
    const asking = 'killed-ask';
    const note = 'killed-note';
    await rpc('a', 'tools/call', { name: 'add_note', arguments: { id: note, text: 'kept' } });
    const working = await createTask('c', 'slow_job', { key, ms: 30_000 });
    const waiting = await createTask('c', 'confirm_job', { key: asking });
    const approval = await createTask('c', 'delete_note', { id: note });
    const inputKey = Object.keys((await until(() => getTask('a', waiting), (task) => task.status === 'input_required')).inputRequests!)[0]!;
    await until(() => getTask('b', approval), (task) => task.status === 'input_required');
    expect(await cluster.ledger.starts(key)).toEqual(['c']);
    // Alive, its node renews the leases: the others see them unfailed for two leases and more.
    const aliveUntil = Date.now() + 2 * LEASE_MS;
    for (let i = 0; Date.now() < aliveUntil; i++) {
      const node = i % 2 === 0 ? 'a' : 'b';
      expect((await getTask(node, working)).status).toBe('working');
      expect((await getTask(node, waiting)).status).toBe('input_required');
      expect((await getTask(node, approval)).status).toBe('input_required');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const pid = cluster.node('c').pid;
    await cluster.kill('c');
    const killedAt = Date.now();
    expect(cluster.node('c').alive).toBe(false);
    expect(cluster.node('c').pid).toBe(pid);
    const failed = await until(() => getTask('a', working), (task) => task.status !== 'working', LEASE_MS * 3, 50);
    const failedMs = Date.now() - killedAt;
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual(RUNNER_GONE);
    // Within one lease of the kill (its last renewal was before it), plus a margin for the polls on a busy machine.
    expect(failedMs).toBeLessThan(LEASE_MS + 1_000);
    for (const taskId of [working, waiting, approval]) {
      const seen = await getTask('b', taskId);
      expect(seen.status).toBe('failed');
      expect(seen.error).toEqual(RUNNER_GONE);
    }

    // Answers and an approval sent now are taken by no one: nothing runs; a cancel keeps `failed`.
    expect((await rpc('a', 'tasks/update', { taskId: waiting, inputResponses: { [inputKey]: { action: 'accept', content: { confirm: true } } } })).result).toEqual(ACK);
    expect((await rpc('b', 'tasks/update', { taskId: approval, inputResponses: { 'rxmcp.approve': { action: 'accept', content: { approve: true } } } })).result).toEqual(ACK);
    expect((await rpc('a', 'tasks/cancel', { taskId: working })).result).toEqual(ACK);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const taskId of [working, waiting, approval]) expect((await getTask('a', taskId)).status).toBe('failed');
    // It ran nowhere else, and never to its end.
    expect(await cluster.ledger.starts(key)).toEqual(['c']);
    expect(await cluster.ledger.runs(key)).toEqual([]);
    expect(await cluster.ledger.aborts(key)).toEqual([]);
    expect(await cluster.ledger.starts(asking)).toEqual(['c']);
    expect(await cluster.ledger.runs(asking)).toEqual([]);
    expect(await cluster.ledger.runs(`delete.${note}`)).toEqual([]);
    expect(await cluster.ledger.note(note)).toBe('kept');
    console.info(`tasks e2e: SIGKILL -> failed on A in ${failedMs} ms (lease ${LEASE_MS} ms)`);
  }, 30_000);
});
