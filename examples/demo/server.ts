/**
 * The demo server that `npm start` serves: a few honest tools, a notes
 * resource with a per-note template, a prompt with a completer, and explicit
 * authorizers. Every tool does what its description says; nothing is faked.
 *
 * - `echo`, `add`: plain synchronous tools.
 * - `slow_task`: waits on the SERVER's scheduler (so a test's virtual clock
 *   drives it) and stops as soon as its AbortSignal fires; for a client that
 *   takes tasks, a wait longer than a second becomes a task (docs/tasks.md).
 * - `fail` throws a plain Error (the client sees `Error: callback_crashed`,
 *   with the hint of `exposeErrors: 'hint'`: the demo is where people learn);
 *   `reject_input` throws a ToolError (the client sees its message).
 * - `delete_note` is destructive: the tool authorizer answers `{ask}` for it,
 *   with a question naming the note, so it runs only after the client
 *   approves through elicitation.
 * - `notes_board` is an MCP App (examples/demo/notes-board-view.ts): its
 *   view, ui://notes/board, lists the notes and deletes one with
 *   `delete_note` through the host, so the deletion still waits for the
 *   person's approval.
 * - Tools: an allowlist, chosen here (`authorizerSource: 'configured'`);
 *   reads: `allowAll()`.
 */
import { asyncScheduler } from 'rxjs';
import {
  allowAll,
  allowlist,
  appsExtension,
  createServer,
  Registry,
  ResourceNotFoundError,
  sleep,
  ToolError,
  type McpServer,
  type ServerOptions,
} from '../../lib/index.js';
import { NOTES_BOARD_HTML, NOTES_BOARD_URI } from './notes-board-view.js';

/** Options the demo leaves to its caller; the registry and the authorization are the demo's own. */
export type DemoServerOptions = Omit<ServerOptions, 'registry' | 'authorizer' | 'readAuthorizer' | 'authorizerSource'>;

/** The approval question names the note, so the user knows what they approve. */
export function deleteNotePrompt(id: unknown): string {
  return `The demo wants to delete note ${JSON.stringify(String(id))}. This cannot be undone. Approve?`;
}

/** Longest slow_task wait; the callback timeout would end it anyway, this keeps the demo snappy. */
export const SLOW_TASK_MAX_MS = 60_000;

const SAFE_TOOLS = ['echo', 'add', 'slow_task', 'fail', 'reject_input', 'notes_board'];

const TOPICS = ['approvals', 'backpressure', 'cancellation', 'elicitation', 'notes', 'rxjs', 'schedulers'];

const INITIAL_NOTES: ReadonlyArray<readonly [string, string]> = [
  ['1', 'Every timer in rxmcp runs on one injectable scheduler.'],
  ['2', 'Only the connection that was asked may answer an elicitation.'],
  ['3', 'Unsubscribing a connection drops its parked calls and aborts its workers.'],
];

function noteUri(id: string): string {
  return `demo://notes/${encodeURIComponent(id)}`;
}

export function createDemoServer(options: DemoServerOptions = {}): McpServer {
  const scheduler = options.scheduler ?? asyncScheduler;
  // Per server, not per module: two demo servers in one process share nothing.
  const notes = new Map<string, string>(INITIAL_NOTES);
  const registry = new Registry();

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
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }) => {
      if (typeof a !== 'number' || typeof b !== 'number') throw new ToolError('a and b must be numbers');
      return String(a + b);
    },
  });

  registry.registerTool({
    name: 'slow_task',
    description: `Waits ms milliseconds (at most ${SLOW_TASK_MAX_MS}), then reports it; stops early when cancelled.`,
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'integer', minimum: 0, maximum: SLOW_TASK_MAX_MS } },
      required: ['ms'],
    },
    annotations: { readOnlyHint: true },
    // A client that takes tasks (it declares io.modelcontextprotocol/tasks) gets a task once the wait passes a second.
    taskSupport: 'optional',
    taskAfterMs: 1000,
    handler: async ({ ms }, ctx) => {
      if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0 || ms > SLOW_TASK_MAX_MS) {
        throw new ToolError(`ms must be an integer from 0 to ${SLOW_TASK_MAX_MS}`);
      }
      await sleep(ms, { scheduler, signal: ctx.signal });
      return `Waited ${ms} ms`;
    },
  });

  registry.registerTool({
    name: 'fail',
    description: 'Always crashes: shows what a client sees when a handler throws an unexpected error.',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new Error('the demo fail tool crashed on purpose');
    },
  });

  registry.registerTool({
    name: 'reject_input',
    description: 'Always rejects its input with a ToolError: shows an error message the client is meant to see.',
    inputSchema: { type: 'object' },
    handler: () => {
      throw new ToolError('reject_input rejects every input');
    },
  });

  registry.registerTool({
    name: 'delete_note',
    description: 'Deletes a note. Destructive: runs only after the user approves.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    annotations: { destructiveHint: true },
    // Served with authentication (`--auth-issuer`), a caller needs this scope to see or call it.
    requiredScopes: ['notes:write'],
    handler: ({ id }) => {
      if (typeof id !== 'string') throw new ToolError('id must be a string');
      if (!notes.delete(id)) throw new ToolError(`No note with id ${id}`);
      // `server` exists by then: handlers run on calls, after createServer returned.
      server.resourceUpdated('demo://notes');
      server.resourceUpdated(noteUri(id));
      return `Deleted note ${id}`;
    },
  });

  const noteList = () => [...notes].map(([id, text]) => ({ id, text }));
  registry.registerResource({
    uri: 'demo://notes',
    name: 'notes',
    description: 'All notes, as JSON.',
    mimeType: 'application/json',
    read: () => JSON.stringify(noteList().map(({ id, text }) => ({ id, uri: noteUri(id), text }))),
  });

  registry.registerResourceTemplate({
    uriTemplate: 'demo://notes/{id}',
    name: 'note',
    description: 'One note, as plain text.',
    mimeType: 'text/plain',
    read: (_uri, { id = '' }) => {
      const text = notes.get(id);
      if (text === undefined) throw new ResourceNotFoundError(`no note with id ${id}`);
      return text;
    },
    complete: { id: (value) => [...notes.keys()].filter((id) => id.startsWith(value)) },
  });

  registry.registerPrompt({
    name: 'summarize',
    description: 'Asks the model to summarize the notes about a topic.',
    arguments: [{ name: 'topic', description: 'What the summary is about.', required: true }],
    get: ({ topic }) =>
      `Summarize what these notes say about ${topic}, in at most three sentences:\n` +
      [...notes].map(([id, text]) => `- (${id}) ${text}`).join('\n'),
    complete: { topic: (value) => TOPICS.filter((topic) => topic.startsWith(value.toLowerCase())) },
  });

  registry.registerApp(
    {
      uri: NOTES_BOARD_URI,
      name: 'notes_board',
      description: 'The notes board: lists the notes, deletes one after the user approves.',
      ui: { prefersBorder: true },
      html: NOTES_BOARD_HTML,
    },
    [
      {
        name: 'notes_board',
        description: 'Shows the notes on a board (hosts that render MCP Apps show the board; others get the list as text).',
        inputSchema: { type: 'object' },
        annotations: { readOnlyHint: true },
        ui: {},
        handler: () => {
          const list = noteList();
          const text = list.length === 0 ? 'No notes.' : list.map((note) => `(${note.id}) ${note.text}`).join('\n');
          return { content: [{ type: 'text', text }], structuredContent: { notes: list } };
        },
      },
    ],
  );

  const server = createServer({
    name: 'rxmcp-demo',
    // Someone trying the demo sees where a crash's message went, and how to send one.
    exposeErrors: 'hint',
    ...options,
    extensions: [appsExtension(), ...(options.extensions ?? [])],
    registry,
    authorizer: allowlist(SAFE_TOOLS, { ask: { delete_note: ({ id }) => deleteNotePrompt(id) } }),
    authorizerSource: 'configured',
    readAuthorizer: allowAll(),
  });
  return server;
}
