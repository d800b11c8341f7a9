/**
 * The 2026-07-28 MRTR fixtures (SEP-2322): the `test_input_required_result_*`
 * tools and prompt, each asking for exactly the inputs (keys, methods,
 * params) its input-required-result-* scenario documents, through
 * input-rounds.ts (ctx.askInputs). On a legacy request they run to
 * completion with real client requests; on a modern one each ask is one
 * input_required round under those keys, which the retries complete.
 */
import { ClientCapabilityError, ToolError, type CallContext, type ElicitResult, type Registry } from '../../lib/index.js';
import { askInputs, declaresCapability } from './input-rounds.js';

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

function stringField(name: string) {
  return { type: 'object', properties: { [name]: { type: 'string' } }, required: [name] };
}

const ASK_NAME = { method: 'elicitation/create', params: { message: 'What is your name?', requestedSchema: stringField('name') } } as const;
const ASK_CONFIRM = {
  method: 'elicitation/create',
  params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
} as const;
const ASK_ROOTS = { method: 'roots/list', params: {} } as const;

function sample(text: string, maxTokens: number) {
  return { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens } } as const;
}

/** An accepted form's field; anything else (declined, cancelled, missing, not a string) is the tool's error. */
function accepted(result: ElicitResult, field: string): unknown {
  if (result.action !== 'accept') throw new ToolError(`the user did not accept (action=${result.action})`);
  const value = result.content?.[field];
  if (value === undefined) throw new ToolError(`the answer has no ${field}`);
  return value;
}

function acceptedString(result: ElicitResult, field: string): string {
  const value = accepted(result, field);
  if (typeof value !== 'string') throw new ToolError(`${field} must be a string`);
  return value;
}

/** The first text of a sampling result (one content block, or a list of them). */
export function sampledText(result: Record<string, unknown>): string {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const first = blocks.find((b): b is { type: 'text'; text: string } => typeof b === 'object' && b !== null && b.type === 'text');
  return first?.text ?? JSON.stringify(result.content);
}

function rootUris(result: { roots: Array<{ uri: string }> }): string {
  return result.roots.map((root) => root.uri).join(', ');
}

/** Asks only for what the client can answer: by the envelope on modern, by trying on legacy. */
async function askIfAble<T>(ctx: CallContext, capability: 'elicitation' | 'sampling', asking: () => Promise<T>): Promise<T | undefined> {
  if (declaresCapability(ctx, capability) === false) return undefined;
  try {
    return await asking();
  } catch (error) {
    // askInputs made a legacy client's missing capability a ToolError; its cause is what says "not declared".
    if (ctx.modern === undefined && error instanceof ToolError && error.cause instanceof ClientCapabilityError) return undefined;
    throw error;
  }
}

export function registerInputRequiredTools(registry: Registry): void {
  registry.registerTool({
    name: 'test_input_required_result_elicitation',
    description: "Asks the user's name (input key user_name) and greets them.",
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { user_name } = await askInputs(ctx, { user_name: ASK_NAME });
      return `Hello, ${acceptedString(user_name, 'name')}!`;
    },
  });

  registry.registerTool({
    name: 'test_input_required_result_sampling',
    description: 'Asks the client to sample the capital of France (input key capital_question).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { capital_question } = await askInputs(ctx, { capital_question: sample('What is the capital of France?', 100) });
      return `Sampling response: ${sampledText(capital_question)}`;
    },
  });

  registry.registerTool({
    name: 'test_input_required_result_list_roots',
    description: "Asks the client's roots (input key client_roots) and names them.",
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { client_roots } = await askInputs(ctx, { client_roots: ASK_ROOTS });
      return `Client roots: ${rootUris(client_roots)}`;
    },
  });

  // The state between rounds is this handler's own: its continuation on legacy, sealed requestState under MRTR.
  for (const name of ['test_input_required_result_request_state', 'test_input_required_result_tampered_state']) {
    registry.registerTool({
      name,
      description: 'Asks for a confirmation (input key confirm) with requestState between the rounds.',
      inputSchema: NO_ARGUMENTS,
      handler: async (_args, ctx) => {
        const { confirm } = await askInputs(ctx, { confirm: ASK_CONFIRM });
        return `state-ok: confirmed=${String(accepted(confirm, 'ok'))}`;
      },
    });
  }

  registry.registerTool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks for a name, a sampled greeting and the roots in one round (user_name, greeting, client_roots).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const answers = await askInputs(ctx, { user_name: ASK_NAME, greeting: sample('Generate a greeting', 50), client_roots: ASK_ROOTS });
      const name = acceptedString(answers.user_name, 'name');
      return `Name: ${name}; greeting: ${sampledText(answers.greeting)}; roots: ${rootUris(answers.client_roots)}`;
    },
  });

  registry.registerTool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks a name (step1), then a favorite color (step2), one round each.',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { step1 } = await askInputs(ctx, {
        step1: { method: 'elicitation/create', params: { message: 'Step 1: What is your name?', requestedSchema: stringField('name') } },
      });
      const name = acceptedString(step1, 'name');
      const { step2 } = await askInputs(ctx, {
        step2: { method: 'elicitation/create', params: { message: 'Step 2: What is your favorite color?', requestedSchema: stringField('color') } },
      });
      return `${name}'s favorite color is ${acceptedString(step2, 'color')}`;
    },
  });

  registry.registerTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for the inputs the client declared: a sampled answer (sampling) and a name (elicitation).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const sampled = await askIfAble(ctx, 'sampling', () => askInputs(ctx, { capital_question: sample('What is the capital of France?', 100) }));
      const elicited = await askIfAble(ctx, 'elicitation', () => askInputs(ctx, { user_name: ASK_NAME }));
      const sampling = sampled === undefined ? 'not declared' : sampledText(sampled.capital_question);
      const elicitation = elicited === undefined ? 'not declared' : acceptedString(elicited.user_name, 'name');
      return `sampling: ${sampling}; elicitation: ${elicitation}`;
    },
  });

  registry.registerPrompt({
    name: 'test_input_required_result_prompt',
    description: 'A prompt that asks the user for its context first (input key user_context).',
    get: async (_args, ctx) => {
      const { user_context } = await askInputs(ctx, {
        user_context: { method: 'elicitation/create', params: { message: 'What context should the prompt use?', requestedSchema: stringField('context') } },
      });
      return `Use this context: ${acceptedString(user_context, 'context')}`;
    },
  });
}
