/**
 * The tasks fixtures (the tasks extension, SEP-2663): the tools the
 * conformance suite's tasks-* scenarios call, each as its scenario documents.
 * Handlers are ordinary tool handlers: whether a call runs as a task is the
 * server's decision (their `taskSupport`, the client's declaration, the
 * `afterMs` policy), and their ctx.sleep, ctx.elicit and ctx.askInputs work
 * the same either way.
 */
import { ToolError, type ElicitResult, type Registry } from '../../lib/index.js';

function nameField(field: string) {
  return { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } as const;
}

const CONFIRM = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] } as const;

function acceptedField(result: ElicitResult | undefined, field: string): unknown {
  if (result?.action !== 'accept') throw new ToolError(`the user did not accept (action=${String(result?.action)})`);
  return result.content?.[field];
}

export function registerTaskTools(registry: Registry): void {
  registry.registerTool({
    name: 'greet',
    description: 'Greets by name, at once (never a task).',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }) => `Hello, ${name}!`,
  });

  registry.registerTool({
    name: 'slow_compute',
    description: 'Sleeps `seconds` on the server clock, then answers; a task when the client takes one.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0, maximum: 3600 }, label: { type: 'string' } }, required: ['seconds'] },
    handler: async ({ seconds, label }, ctx) => {
      await ctx.sleep(Math.round(seconds * 1000));
      return `Computed ${label ?? 'result'} after ${seconds}s`;
    },
  });

  registry.registerTool({
    name: 'failing_job',
    description: 'Must run as a task; ends with a tool error after a second.',
    taskSupport: 'required',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      await ctx.sleep(1000);
      throw new ToolError('failing_job failed, as it always does');
    },
  });

  registry.registerTool({
    name: 'protocol_error_job',
    description: 'Crashes (a protocol-level failure): the task is failed with a JSON-RPC error.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      await ctx.sleep(100);
      throw new Error('protocol_error_job crashed on purpose');
    },
  });

  registry.registerTool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm, then "deletes" the file.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM });
      return acceptedField(answer, 'confirm') === true ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  });

  registry.registerTool({
    name: 'multi_input',
    description: 'Asks two questions at once; answers them in any order.',
    taskSupport: 'optional',
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      const answers = await ctx.askInputs({
        name: { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema: nameField('name') } },
        confirm: { method: 'elicitation/create', params: { message: 'Proceed?', requestedSchema: CONFIRM } },
      });
      return `Got ${String(acceptedField(answers.name, 'name'))}, confirm=${String(acceptedField(answers.confirm, 'confirm'))}`;
    },
  });

  registry.registerTool({
    name: 'test_tool_with_task',
    description: 'Asks for a name in an input round, then works as a task (it does not answer within 50 ms).',
    taskSupport: 'required',
    taskAfterMs: 50,
    inputSchema: { type: 'object', properties: {} },
    handler: async (_args, ctx) => {
      const { user_name } = await ctx.askInputs({
        user_name: { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: nameField('name') } },
      });
      const name = acceptedField(user_name, 'name');
      await ctx.sleep(500);
      return `Hello, ${String(name)}! (from the task)`;
    },
  });
}
