/**
 * The server every node of the cluster example runs: the same registry and
 * authorizers on each node, with its state in Redis (ledger.ts) so that a
 * request may land on any node. Each tool is there because the cluster tests
 * (test/cluster-e2e) or a person trying the cluster needs it:
 *
 * - `whoami`: the node that served the call and how many calls it served (spread across nodes).
 * - `echo`: the benchmark's echo; nothing else.
 * - `record` {key, ms}: notes its start, waits (stops when cancelled, recording the abort), then
 *   records its one side effect; returns how many runs the key has, cluster-wide.
 * - `hold` {ms}: a gauged wait: counts itself in the cluster-wide running gauge (caps under a flood).
 * - `delete_note` {id}: destructive, runs only after an approval (legacy parking, an MRTR ticket, or an
 *   approval task when the request declared the tasks extension: approved with tasks/update on any node).
 * - `slow_job` {key, ms} (`taskSupport: 'optional'`): a task when the request declared the tasks
 *   extension; notes its start, sleeps on ctx.sleep, then records its one run; a run stopped
 *   (tasks/cancel on any node) is recorded as an abort instead. Returns the runs so far.
 * - `confirm_job` {key} (`taskSupport: 'optional'`): notes its start, asks for a confirmation
 *   (ctx.elicit: a task goes to input_required until tasks/update answers on any node), then
 *   records its one run when confirmed.
 * - `add_note` {id, text}: changes `cluster://notes`, heard by listens and subscribers on every node.
 * - `greet`: asks the user's name through ctx.elicit (legacy: a request on the stream; modern: input_required).
 * - `survey` {questions}: asks 1-5 questions in turn, reporting progress after each answer (a call
 *   that goes on for as long as the user takes; its stream may drop and resume on another node).
 */
import { randomUUID } from 'node:crypto';
import { asyncScheduler } from 'rxjs';
import {
  allowAll,
  allowlist,
  createServer,
  Registry,
  ResourceNotFoundError,
  sleep,
  ToolError,
  type McpServer,
  type ServerOptions,
} from '../../lib/index.js';
import { NAME, type ExampleLedger } from './ledger.js';

export const DELETE_NOTE_PROMPT = 'The cluster example wants to delete a note. Approve?';
export const NOTES_URI = 'cluster://notes';
/** Longest wait `record` and `hold` accept. */
export const MAX_WAIT_MS = 60_000;

/** The arguments of `record` and `slow_job`: a record key and a wait. */
const KEY_AND_WAIT = {
  type: 'object',
  properties: { key: { type: 'string' }, ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS } },
  required: ['key', 'ms'],
} as const;

const SAFE_TOOLS = ['whoami', 'echo', 'record', 'hold', 'add_note', 'greet', 'survey', 'slow_job', 'confirm_job'];
/** Most questions one survey asks. */
export const MAX_QUESTIONS = 5;

export function noteUri(id: string): string {
  return `${NOTES_URI}/${encodeURIComponent(id)}`;
}

export interface ClusterNodeServerOptions {
  readonly nodeId: string;
  readonly ledger: ExampleLedger;
  /** Spread into createServer last but for the registry and authorizers (the cluster's fragment, a logger). */
  readonly serverOptions?: Partial<ServerOptions>;
}

function name(value: unknown, what: string): string {
  if (typeof value !== 'string' || !NAME.test(value)) throw new ToolError(`${what} must be 1-64 letters, digits, '.', '_' or '-'`);
  return value;
}

function waitMs(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_WAIT_MS) {
    throw new ToolError(`ms must be an integer from 0 to ${MAX_WAIT_MS}`);
  }
  return value;
}

export function createClusterNodeServer(options: ClusterNodeServerOptions): McpServer {
  const { nodeId, ledger } = options;
  const scheduler = options.serverOptions?.scheduler ?? asyncScheduler;
  const registry = new Registry();
  let served = 0;

  /**
   * `record` and `slow_job`: notes the start, waits (on the server's
   * scheduler, stopped by the call's signal), then records the run. A run
   * stopped (a cancel, a task's TTL, the server's close) records an abort
   * instead, so a test sees the handler's signal fired on this node.
   */
  const timedRun = async (key: unknown, ms: unknown, wait: (ms: number) => Promise<void>): Promise<string> => {
    const record = name(key, 'key');
    const waited = waitMs(ms);
    await ledger.started(record);
    try {
      await wait(waited);
    } catch (err) {
      await ledger.aborted(record);
      throw err;
    }
    const runs = await ledger.ran(record);
    return JSON.stringify({ node: nodeId, key: record, runs });
  };

  registry.registerTool({
    name: 'whoami',
    description: 'Names the node that served this call and how many whoami calls it has served.',
    inputSchema: { type: 'object' },
    annotations: { readOnlyHint: true },
    handler: () => JSON.stringify({ node: nodeId, served: ++served }),
  });

  registry.registerTool({
    name: 'echo',
    description: 'Returns the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
    handler: ({ text }) => {
      if (typeof text !== 'string') throw new ToolError('text must be a string');
      return text;
    },
  });

  registry.registerTool({
    name: 'record',
    description: 'Waits ms milliseconds (stops early when cancelled), then records one run under key; returns the runs so far.',
    inputSchema: KEY_AND_WAIT,
    handler: ({ key, ms }, ctx) => timedRun(key, ms, (wait) => ctx.sleep(wait)),
  });

  registry.registerTool({
    name: 'slow_job',
    description: 'Sleeps ms milliseconds (a task when the client takes tasks; stops when cancelled), then records one run under key; returns the runs so far.',
    taskSupport: 'optional',
    inputSchema: KEY_AND_WAIT,
    handler: ({ key, ms }, ctx) => timedRun(key, ms, (wait) => ctx.sleep(wait)),
  });

  registry.registerTool({
    name: 'confirm_job',
    description: 'Asks for a confirmation (elicitation; a task waits in input_required), then records one run under key when confirmed.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] },
    handler: async ({ key }, ctx) => {
      const job = name(key, 'key');
      await ledger.started(job);
      const answer = await ctx.elicit({
        message: `Run job ${job}?`,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
      });
      if (answer.action !== 'accept' || answer.content?.confirm !== true) return JSON.stringify({ node: nodeId, key: job, confirmed: false });
      const runs = await ledger.ran(job);
      return JSON.stringify({ node: nodeId, key: job, confirmed: true, runs });
    },
  });

  registry.registerTool({
    name: 'hold',
    description: 'Counts itself in the cluster-wide gauge of running handlers, waits ms milliseconds, counts itself out.',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0, maximum: MAX_WAIT_MS } }, required: ['ms'] },
    handler: async ({ ms }, ctx) => {
      const wait = waitMs(ms);
      const leave = await ledger.enterGauge(randomUUID());
      try {
        await sleep(wait, { scheduler, signal: ctx.signal });
      } finally {
        await leave();
      }
      return JSON.stringify({ node: nodeId, held: wait });
    },
  });

  // Every node's listeners of the list and of that note hear of a change made on any node.
  const notesChanged = (note: string) => {
    server.resourceUpdated(NOTES_URI);
    server.resourceUpdated(noteUri(note));
  };

  registry.registerTool({
    name: 'add_note',
    description: `Adds (or replaces) a shared note; every node's listeners of ${NOTES_URI} hear of it.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'] },
    handler: async ({ id, text }) => {
      const note = name(id, 'id');
      if (typeof text !== 'string' || text.length > 4096) throw new ToolError('text must be a string of at most 4096 characters');
      if (!(await ledger.addNote(note, text))) throw new ToolError('the note store is full');
      notesChanged(note);
      return `Added note ${note} on ${nodeId}`;
    },
  });

  registry.registerTool({
    name: 'delete_note',
    description: 'Deletes a shared note. Destructive: runs only after the user approves.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { destructiveHint: true },
    handler: async ({ id }) => {
      const note = name(id, 'id');
      // The run is recorded before the outcome: a second approved run of one ticket would show even if the note were gone.
      await ledger.ran(`delete.${note}`);
      if (!(await ledger.deleteNote(note))) throw new ToolError(`No note with id ${note}`);
      notesChanged(note);
      return `Deleted note ${note} on ${nodeId}`;
    },
  });

  registry.registerTool({
    name: 'greet',
    description: "Asks the user's name (elicitation), then greets them.",
    inputSchema: { type: 'object' },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', maxLength: 64 } }, required: ['name'] },
      });
      if (answer.action !== 'accept' || typeof answer.content?.name !== 'string') return 'No name, no greeting.';
      return `Hello, ${answer.content.name}, from ${nodeId}`;
    },
  });

  registry.registerTool({
    name: 'survey',
    description: `Asks 1-${MAX_QUESTIONS} short questions in turn (elicitation), reporting progress after each answer; returns the answers.`,
    inputSchema: { type: 'object', properties: { questions: { type: 'integer', minimum: 1, maximum: MAX_QUESTIONS } }, required: ['questions'] },
    handler: async ({ questions }, ctx) => {
      if (typeof questions !== 'number' || !Number.isInteger(questions) || questions < 1 || questions > MAX_QUESTIONS) {
        throw new ToolError(`questions must be an integer from 1 to ${MAX_QUESTIONS}`);
      }
      const answers: string[] = [];
      for (let i = 1; i <= questions; i++) {
        const answer = await ctx.elicit({
          message: `Question ${i} of ${questions}?`,
          requestedSchema: { type: 'object', properties: { answer: { type: 'string', maxLength: 64 } }, required: ['answer'] },
        });
        if (answer.action !== 'accept' || typeof answer.content?.answer !== 'string') return `Survey stopped at question ${i} on ${nodeId}`;
        answers.push(answer.content.answer);
        ctx.progress(i, questions);
      }
      return `Answers ${answers.join(', ')} on ${nodeId}`;
    },
  });

  registry.registerResource({
    uri: NOTES_URI,
    name: 'notes',
    description: 'All shared notes, as JSON.',
    mimeType: 'application/json',
    read: async () => JSON.stringify(await ledger.notes()),
  });

  registry.registerResourceTemplate({
    uriTemplate: `${NOTES_URI}/{id}`,
    name: 'note',
    description: 'One shared note, as plain text.',
    mimeType: 'text/plain',
    read: async (_uri, { id = '' }) => {
      const text = NAME.test(id) ? await ledger.note(id) : undefined;
      if (text === undefined) throw new ResourceNotFoundError(`no note with id ${id}`);
      return text;
    },
  });

  const server = createServer({
    name: 'rxmcp-cluster-example',
    ...options.serverOptions,
    registry,
    authorizer: allowlist(SAFE_TOOLS, { ask: { delete_note: DELETE_NOTE_PROMPT } }),
    authorizerSource: 'configured',
    readAuthorizer: allowAll(),
  });
  return server;
}
