/** A server speaking tasks on a TestClock, with tools that record what ran, and modern requests that declare (or not) the extension. */
import { createServer, Registry, ToolError, type ServerOptions } from '../../lib/index.js';
import type { TaskOptions } from '../../lib/tasks/task-options.js';
import { TestClock } from '../../testing/index.js';
import { modernRpc } from '../era/modern-helpers.js';

export const TASKS = 'io.modelcontextprotocol/tasks';

/** The capabilities a request declares: the tasks extension and form elicitation, unless told otherwise. */
export function taskCaps(options: { tasks?: boolean; elicitation?: boolean } = {}): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (options.tasks !== false) caps.extensions = { [TASKS]: {} };
  if (options.elicitation !== false) caps.elicitation = {};
  return caps;
}

export function call(id: unknown, name: string, args: Record<string, unknown> = {}, caps = taskCaps()) {
  return modernRpc(id, 'tools/call', { name, arguments: args }, { capabilities: caps });
}

export function tasksRpc(id: unknown, method: string, params: Record<string, unknown>, caps = taskCaps()) {
  return modernRpc(id, method, params, { capabilities: caps });
}

export interface Ran {
  /** Every step the tools took, in order. */
  readonly steps: string[];
  /** The abort reasons the tools' signals saw. */
  readonly aborts: string[];
}

export function taskServer(tasks: TaskOptions = {}, more: Partial<ServerOptions> = {}) {
  const clock = new TestClock({ start: Date.UTC(2026, 11, 4) });
  const ran: Ran = { steps: [], aborts: [] };
  const registry = new Registry()
    .registerTool({ name: 'plain', handler: () => 'plain answer' })
    .registerTool({
      name: 'slow',
      taskSupport: 'optional',
      handler: async ({ ms }, ctx) => {
        ctx.signal.addEventListener('abort', () => ran.aborts.push(String((ctx.signal.reason as Error)?.message)));
        ran.steps.push('slow started');
        await ctx.sleep(Number(ms ?? 1000));
        ran.steps.push('slow done');
        return `slept ${String(ms ?? 1000)}`;
      },
    })
    .registerTool({ name: 'must', taskSupport: 'required', handler: () => 'must answer' })
    .registerTool({
      name: 'confirm',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => ran.aborts.push('confirm aborted'));
        const answer = await ctx.elicit({ message: 'Sure?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
        ran.steps.push(`confirm answered ${answer.action}`);
        return `confirmed: ${JSON.stringify(answer.content ?? null)}`;
      },
    })
    .registerTool({
      name: 'two',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        const form = { type: 'object', properties: { v: { type: 'string' } } } as const;
        const answers = await ctx.askInputs({
          a: { method: 'elicitation/create', params: { message: 'a?', requestedSchema: form } },
          b: { method: 'elicitation/create', params: { message: 'b?', requestedSchema: form } },
        });
        ran.steps.push('two answered');
        return `a=${JSON.stringify(answers.a.content)} b=${JSON.stringify(answers.b.content)}`;
      },
    })
    .registerTool({ name: 'tool_error', taskSupport: 'optional', handler: () => { throw new ToolError('it went wrong'); } })
    .registerTool({ name: 'crash', taskSupport: 'optional', handler: async () => { throw new Error('boom'); } })
    .registerTool({
      name: 'chatty',
      taskSupport: 'optional',
      handler: async (_args, ctx) => {
        ctx.log('error', 'a log line');
        ctx.progress(1, 2);
        await ctx.sleep(10);
        return 'said';
      },
    });
  const server = createServer({ registry, scheduler: clock, tasks, ...more });
  return { server, clock, ran };
}

/** The reply's result, failing the test with the reply when it is an error. */
export function resultOf(reply: unknown): Record<string, unknown> {
  const r = reply as { result?: Record<string, unknown>; error?: unknown };
  if (r?.result === undefined) throw new Error(`expected a result, got ${JSON.stringify(reply)}`);
  return r.result;
}
