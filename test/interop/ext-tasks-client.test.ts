/**
 * The official Tasks client, `@modelcontextprotocol/ext-tasks` (pinned in
 * devDependencies), over the official `@modelcontextprotocol/client` pinned
 * to 2026-07-28, against rxmcp with tasks on, over stdio and over Streamable
 * HTTP on 127.0.0.1 port 0: the BUILT fixture ./tasks-server.mjs (`npm test`
 * builds first) serves the everything fixture's tasks tools and two of its
 * own. Every call goes through the package's session (`callTool`, its
 * polling, its input handling, `cancel`, its outcomes); nothing here speaks
 * the tasks wire by hand.
 *
 * The package needs, for a 2026-07-28 server, a host-owned raw request path
 * (`rawDispatch`: the SDK's codecs reject `resultType: "task"`) and the
 * framing the client initialized with (`v2RequestFraming`). `rawCoordinator`
 * is that host part: it sends the framed request on the SDK transport the
 * Client is connected with, under ids of its own, and takes the matching
 * response off the transport before the Client sees it. The transport adds
 * the routing headers itself (Mcp-Method, and Mcp-Name from params.taskId).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
  DispatchError,
  resultFromTaskOutcome,
  TaskFailedError,
  type ApplicationElicitResult,
  type ApplicationInputRequest,
  type JsonRpcResponse,
  type RawClientDispatch,
  type ResolvedInputExchangeContext,
  type TaskEnabledSession,
  type TaskExecutionEvent,
} from '@modelcontextprotocol/ext-tasks/client';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = fileURLToPath(new URL('./tasks-server.mjs', import.meta.url));
const BUILT = fileURLToPath(new URL('../../dist/examples/everything/task-tools.js', import.meta.url));
const MODERN = '2026-07-28';
const CLIENT_INFO = { name: 'rxmcp-ext-tasks-interop', version: '1.0.0' };
const CLIENT_CAPABILITIES = { elicitation: {} };
/** Longest a raw request may wait for its response. */
const REQUEST_MS = 10_000;

type Wire = 'stdio' | 'streamable-http';
type Sent = { readonly method: string; readonly params: Record<string, any> };

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build\` first (npm test does)`);
});

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length > 0) await Promise.resolve(cleanups.pop()!()).catch(() => {});
});

/** Starts ./tasks-server.mjs over HTTP and resolves with the URL its first stdout line names; the child is killed after the test. */
function serveHttpChild(): Promise<URL> {
  const child: ChildProcess = spawn(process.execPath, [SERVER, 'http'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`tasks-server.mjs exited early (${code}): ${stderr}`)));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(stdout)?.[1];
      if (url) resolve(new URL(url));
    });
  });
}

/**
 * The host's raw request path for the package: each request goes out on the
 * Client's own transport with an id the Client never uses, and its response
 * is taken off the transport's inbound side; everything else still reaches
 * the Client. Records what it sent.
 */
function rawCoordinator(transport: Transport, sent: Sent[]): RawClientDispatch {
  const pending = new Map<string, (response: JsonRpcResponse | Error) => void>();
  let counter = 0;
  const toClient = transport.onmessage;
  if (toClient === undefined) throw new Error('connect the Client before making the coordinator');
  transport.onmessage = (message, extra) => {
    const reply = message as { id?: unknown; method?: unknown; result?: unknown; error?: any };
    const settle = typeof reply.id === 'string' && reply.method === undefined ? pending.get(reply.id) : undefined;
    if (settle === undefined) return toClient.call(transport, message, extra);
    pending.delete(reply.id as string);
    settle(reply.error !== undefined ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result as never });
  };
  const previousOnclose = transport.onclose;
  transport.onclose = () => {
    for (const settle of pending.values()) settle(new DispatchError('the transport closed'));
    pending.clear();
    previousOnclose?.call(transport);
  };
  return (request, options) => {
    const { method, params } = request as { method: string; params: Record<string, any> };
    sent.push({ method, params });
    const id = `ext-tasks-${++counter}`;
    return new Promise<JsonRpcResponse>((resolve, reject) => {
      const timer = setTimeout(() => finish(new DispatchError(`${method} timed out`, true)), options?.context?.requestTimeoutMs ?? REQUEST_MS);
      const onAbort = () => finish(new DispatchError(`${method} aborted`));
      const finish = (outcome: JsonRpcResponse | Error) => {
        clearTimeout(timer);
        options?.signal?.removeEventListener('abort', onAbort);
        pending.delete(id);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      if (options?.signal?.aborted) return finish(new DispatchError(`${method} aborted`));
      options?.signal?.addEventListener('abort', onAbort, { once: true });
      pending.set(id, finish);
      transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch((error: unknown) => finish(new DispatchError(`${method} not sent`, false, { cause: error })));
    });
  };
}

/** One question the application saw, with where it came from. */
interface Asked {
  readonly message: unknown;
  readonly scope: string;
  readonly delivery: string;
  readonly taskId: string | undefined;
  readonly inputId: string | undefined;
}

interface Connected {
  readonly client: Client;
  readonly session: TaskEnabledSession;
  /** Every request the package sent through the raw path, in order. */
  readonly sent: Sent[];
  /** Every elicitation the application was asked. */
  readonly asked: Asked[];
  /** The application's answers, by the elicitation's message. */
  readonly answers: Map<string, ApplicationElicitResult>;
}

async function connect(wire: Wire): Promise<Connected> {
  const transport =
    wire === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'], cwd: ROOT, stderr: 'ignore' })
      : new StreamableHTTPClientTransport(await serveHttpChild());
  const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES, versionNegotiation: { mode: { pin: MODERN } } });
  // Closing the stdio transport ends its child (stdin closed, then SIGTERM, then SIGKILL, each after 2 s).
  cleanups.push(() => client.close());
  await client.connect(transport);
  const sent: Sent[] = [];
  const asked: Asked[] = [];
  const answers = new Map<string, ApplicationElicitResult>();
  const unexpected = (request: ApplicationInputRequest) => {
    throw new Error(`unexpected ${request.kind} request`);
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: `rxmcp-${wire}`,
    rawDispatch: rawCoordinator(transport, sent),
    v2RequestFraming: { protocolVersion: MODERN, clientInfo: CLIENT_INFO, clientCapabilities: CLIENT_CAPABILITIES },
    onInputRequest: createApplicationInputHandler({
      elicitation: (request, context: ResolvedInputExchangeContext) => {
        const message = request.params.message;
        asked.push({ message, scope: context.scope, delivery: context.delivery, taskId: context.taskId, inputId: context.inputId });
        const answer = answers.get(String(message));
        if (answer === undefined) throw new Error(`no answer for ${String(message)}`);
        return answer;
      },
      sampling: unexpected,
      roots: unexpected,
    }),
  });
  cleanups.push(() => session.close());
  return { client, session, sent, asked, answers };
}

const textOf = (result: unknown) => ((result as { content?: Array<{ text?: string }> }).content ?? []).map((block) => block.text ?? '').join('');
const methods = (sent: readonly Sent[]) => sent.map((request) => request.method);

/** Calls a tool through the session, which must have made it a task, and waits for the task to settle. */
async function settledTask(session: TaskEnabledSession, name: string, args: Record<string, string> = {}) {
  const execution = await session.callTool(name, args);
  expect(execution.kind).toBe('task');
  const taskId = execution.handle!.taskId;
  const { outcome } = await execution.settle();
  return { taskId, outcome };
}

interface Journal {
  readonly aborts: Array<{ label: string; aborted: boolean; reason: string }>;
  readonly wiped: string[];
}

/** What the server's wait_for_cancel and wipe runs recorded, once `done` holds of it (or 5 s went by). */
async function journal(client: Client, done: (seen: Journal) => boolean = () => true): Promise<Journal> {
  const until = Date.now() + 5000;
  for (;;) {
    const seen = JSON.parse(textOf(await client.callTool({ name: 'journal', arguments: {} }))) as Journal;
    if (done(seen) || Date.now() > until) return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The authorizer's deny, as the result's text carries it. */
const deny = (detail: string) => ({ error: 'authorization_required', tool: 'wipe', decision: 'ask', detail });

describe.each<Wire>(['stdio', 'streamable-http'])('the official ext-tasks client over %s', (wire) => {
  test('the session sees a 2026-07-28 Tasks server that can execute, cancel and take input', async () => {
    const { client, session } = await connect(wire);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true, inputResponses: true });
  });

  test('slow_compute runs as a task, polled to completed, with the result the tool answers without a task', async () => {
    const { client, session, sent } = await connect(wire);
    const execution = await session.callTool('slow_compute', { seconds: 0.2, label: 'the sum' });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle!.taskId;
    expect(taskId).toMatch(/^task-/);
    const events: Array<TaskExecutionEvent<unknown>> = [];
    const { outcome } = await execution.settle({ onEvent: (event) => void events.push(event) });
    expect(outcome.status).toBe('completed');
    const result = resultFromTaskOutcome(outcome) as Record<string, unknown>;
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'Computed the sum after 0.2s' }] });
    expect(result.isError).toBeUndefined();

    // What the task ran to is what the same call answers when the client takes no task (the SDK Client does not declare the extension).
    const plain = await client.callTool({ name: 'slow_compute', arguments: { seconds: 0.2, label: 'the sum' } });
    expect(plain.content).toEqual(result.content);

    // The call, then polls of this task until it was done: it was seen working first.
    expect(sent[0]).toMatchObject({ method: 'tools/call', params: { name: 'slow_compute', _meta: { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } } } });
    const polls = sent.slice(1);
    expect(polls.length).toBeGreaterThanOrEqual(1);
    expect(polls.every((request) => request.method === 'tasks/get' && request.params.taskId === taskId)).toBe(true);
    const statuses = events.flatMap((event) => (event.type === 'task' ? [event.task.status] : []));
    expect(statuses[0]).toBe('working');
    expect(statuses.at(-1)).toBe('completed');
  });

  test("cancel: the task ends cancelled, and the handler's ctx.signal was aborted", async () => {
    const { client, session, sent } = await connect(wire);
    const label = `cancel over ${wire}`;
    const execution = await session.callTool('wait_for_cancel', { label });
    expect(execution.kind).toBe('task');
    const taskId = execution.handle!.taskId;
    expect(await session.task(taskId).snapshot()).toMatchObject({ taskId, status: 'working' });

    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect(() => resultFromTaskOutcome(outcome)).toThrow(expect.objectContaining({ name: 'TaskCancelledError' }));
    expect(sent.filter((request) => request.method === 'tasks/cancel')).toEqual([{ method: 'tasks/cancel', params: expect.objectContaining({ taskId }) }]);

    // The server's view: cancelled, and the handler's signal aborted, once.
    expect(await session.task(taskId).snapshot()).toMatchObject({ taskId, status: 'cancelled' });
    expect((await journal(client, (seen) => seen.aborts.length > 0)).aborts).toEqual([{ label, aborted: true, reason: 'task cancelled' }]);
  });

  test('confirm_delete: the question is answered through tasks/update, and the task completes with the answer', async () => {
    const { session, sent, asked, answers } = await connect(wire);
    answers.set('Delete report.txt?', { action: 'accept', content: { confirm: true } });
    const { taskId, outcome } = await settledTask(session, 'confirm_delete', { filename: 'report.txt' });
    expect(outcome).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Deleted report.txt' }] } });

    expect(asked).toEqual([{ message: 'Delete report.txt?', scope: 'task', delivery: 'task-update', taskId, inputId: expect.any(String) }]);
    const updates = sent.filter((request) => request.method === 'tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.params).toMatchObject({ taskId, inputResponses: { [asked[0]!.inputId!]: { action: 'accept', content: { confirm: true } } } });
  });

  test('confirm_delete declined: the task completes with the tool error, not failed', async () => {
    const { session, answers } = await connect(wire);
    answers.set('Delete draft.txt?', { action: 'decline' });
    const { outcome } = await settledTask(session, 'confirm_delete', { filename: 'draft.txt' });
    expect(outcome).toMatchObject({ status: 'completed', result: { isError: true, content: [{ type: 'text', text: 'the user did not accept (action=decline)' }] } });
  });

  test('multi_input: both questions of one round answered, the task completes with both answers', async () => {
    const { session, sent, asked, answers } = await connect(wire);
    answers.set('Your name?', { action: 'accept', content: { name: 'Ada' } });
    answers.set('Proceed?', { action: 'accept', content: { confirm: true } });
    const { outcome } = await settledTask(session, 'multi_input');
    expect(outcome).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Got Ada, confirm=true' }] } });

    expect(asked.map((question) => question.message).sort()).toEqual(['Proceed?', 'Your name?']);
    expect(asked.map((question) => question.inputId).sort()).toEqual(['confirm', 'name']);
    const answered = sent.filter((request) => request.method === 'tasks/update').flatMap((request) => Object.keys(request.params.inputResponses));
    expect(answered.sort()).toEqual(['confirm', 'name']);
  });

  test('test_tool_with_task: its first question is an input round on the call itself, then it goes on as a task', async () => {
    const { session, sent, asked, answers } = await connect(wire);
    answers.set('What is your name?', { action: 'accept', content: { name: 'Grace' } });
    const { outcome } = await settledTask(session, 'test_tool_with_task');
    expect(outcome).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Hello, Grace! (from the task)' }] } });
    expect(asked).toEqual([{ message: 'What is your name?', scope: 'request', delivery: 'request-retry', taskId: undefined, inputId: 'user_name' }]);
    const calls = sent.filter((request) => request.method === 'tools/call');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.params.inputResponses).toEqual({ user_name: { action: 'accept', content: { name: 'Grace' } } });
    expect(methods(sent)).not.toContain('tasks/update');
  });

  test('protocol_error_job: the task fails, surfaced as a TaskFailedError with the JSON-RPC error', async () => {
    const { session } = await connect(wire);
    const { outcome } = await settledTask(session, 'protocol_error_job');
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error).toBeInstanceOf(TaskFailedError);
    expect(outcome.error.code).toBe(-32603);
    expect(outcome.error.message).toContain('Internal error');
    expect(() => resultFromTaskOutcome(outcome)).toThrow(TaskFailedError);
  });

  test('failing_job (taskSupport required): completed with isError, the tool error in the result', async () => {
    const { session } = await connect(wire);
    const { outcome } = await settledTask(session, 'failing_job');
    expect(outcome).toMatchObject({ status: 'completed', result: { isError: true, content: [{ type: 'text', text: 'failing_job failed, as it always does' }] } });
  });

  test("an approval: the authorizer's ask is a task, approved through tasks/update, and the tool runs once", async () => {
    const { client, session, sent, asked, answers } = await connect(wire);
    answers.set('Wipe disk d1?', { action: 'accept', content: { approve: true } });
    const { taskId, outcome } = await settledTask(session, 'wipe', { disk: 'd1' });
    expect(outcome).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'wiped d1' }] } });

    expect(asked).toEqual([{ message: 'Wipe disk d1?', scope: 'task', delivery: 'task-update', taskId, inputId: 'rxmcp.approve' }]);
    expect(sent.filter((request) => request.method === 'tasks/update').map((request) => request.params.inputResponses)).toEqual([
      { 'rxmcp.approve': { action: 'accept', content: { approve: true } } },
    ]);
    expect((await journal(client)).wiped).toEqual(['d1']);
  });

  test('an approval declined: the task completes with the deny, and the tool never runs', async () => {
    const { client, session, answers } = await connect(wire);
    answers.set('Wipe disk d2?', { action: 'decline' });
    const { outcome } = await settledTask(session, 'wipe', { disk: 'd2' });
    expect(outcome).toMatchObject({ status: 'completed', result: { isError: true } });
    const result = resultFromTaskOutcome(outcome) as { content: Array<{ text: string }> };
    expect(JSON.parse(result.content[0]!.text)).toMatchObject(deny('declined'));
    expect((await journal(client)).wiped).toEqual([]);
  });
});
