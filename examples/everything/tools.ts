/**
 * The fixture's tools: one per tools-call-* conformance scenario (and the
 * SEP-1034 and SEP-1330 elicitation, SEP-1699 reconnection
 * ones), each answering exactly what its scenario documents. Delays run on
 * the server's scheduler via `pause`, so tests can drive them virtually.
 */
import { concat, map, of, timer, type SchedulerLike } from 'rxjs';
import {
  ClientCapabilityError,
  ClientRequestError,
  ToolError,
  audio,
  embeddedResource,
  image,
  progressUpdate,
  sleep,
  text,
  type CallContext,
  type ElicitParams,
  type Registry,
} from '../../lib/index.js';
import { DEFAULTS_SCHEMA, ENUMS_SCHEMA, USER_INFO_SCHEMA } from './elicitation-schemas.js';
import { sampledText } from './input-required-tools.js';
import { RED_PIXEL_PNG_BASE64, SILENT_WAV_BASE64 } from './media.js';

export interface ToolTiming {
  readonly scheduler: SchedulerLike;
  /** The pause between a multi-step tool's steps (the scenarios ask for about 50 ms). */
  readonly stepDelayMs: number;
}

const NO_ARGUMENTS = { type: 'object', properties: {} };

/** A client that cannot be asked, or did not answer, is the tool's error to report, not a crash. */
async function askClient<T>(what: string, ask: () => Promise<T>): Promise<T> {
  try {
    return await ask();
  } catch (error) {
    if (error instanceof ClientCapabilityError || error instanceof ClientRequestError) {
      throw new ToolError(`${what} failed: ${error.message}`);
    }
    throw error;
  }
}

function elicit(ctx: CallContext, params: ElicitParams) {
  return askClient('elicitation', () => ctx.elicit(params));
}

function requireString(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string') throw new ToolError(`${name} must be a string`);
  return value;
}

export function registerTools(registry: Registry, timing: ToolTiming): void {
  const { scheduler, stepDelayMs } = timing;

  registry.registerTool({
    name: 'test_simple_text',
    description: 'Returns one text item.',
    inputSchema: NO_ARGUMENTS,
    handler: () => 'This is a simple text response for testing.',
  });

  registry.registerTool({
    name: 'test_image_content',
    description: 'Returns one image item: a 1x1 red PNG.',
    inputSchema: NO_ARGUMENTS,
    handler: () => [image(RED_PIXEL_PNG_BASE64, 'image/png')],
  });

  registry.registerTool({
    name: 'test_audio_content',
    description: 'Returns one audio item: a tiny silent WAV.',
    inputSchema: NO_ARGUMENTS,
    handler: () => [audio(SILENT_WAV_BASE64, 'audio/wav')],
  });

  registry.registerTool({
    name: 'test_embedded_resource',
    description: 'Returns one embedded text resource.',
    inputSchema: NO_ARGUMENTS,
    handler: () => [
      embeddedResource({ uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }),
    ],
  });

  registry.registerTool({
    name: 'test_multiple_content_types',
    description: 'Returns a text, an image and an embedded resource.',
    inputSchema: NO_ARGUMENTS,
    handler: () => [
      text('Multiple content types test:'),
      image(RED_PIXEL_PNG_BASE64, 'image/png'),
      embeddedResource({
        uri: 'test://mixed-content-resource',
        mimeType: 'application/json',
        text: JSON.stringify({ test: 'data', value: 123 }),
      }),
    ],
  });

  registry.registerTool({
    name: 'test_tool_with_logging',
    description: 'Sends three info log messages while it runs, a step apart.',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      ctx.log('info', 'Tool execution started');
      await sleep(stepDelayMs, { scheduler, signal: ctx.signal });
      ctx.log('info', 'Tool processing data');
      await sleep(stepDelayMs, { scheduler, signal: ctx.signal });
      ctx.log('info', 'Tool execution completed');
      return 'Logging test completed';
    },
  });

  registry.registerTool({
    name: 'test_error_handling',
    description: 'Always fails with a tool error.',
    inputSchema: NO_ARGUMENTS,
    handler: () => {
      throw new ToolError('This tool intentionally returns an error for testing');
    },
  });

  registry.registerTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress 0, 50 and 100 of 100, a step apart.',
    inputSchema: NO_ARGUMENTS,
    // An Observable handler: its ProgressUpdate values go out as notifications/progress, the last value is the result.
    // The result waits a step too: the SDK client handles notifications a microtask late and forgets a request's
    // progress handler once its reply is in, so a progress sent in the same write as the reply could be lost.
    handler: () =>
      concat(
        of(progressUpdate(0, 100)),
        timer(stepDelayMs, scheduler).pipe(map(() => progressUpdate(50, 100))),
        timer(stepDelayMs, scheduler).pipe(map(() => progressUpdate(100, 100))),
        timer(stepDelayMs, scheduler).pipe(map(() => 'Progress test completed')),
      ),
  });

  registry.registerTool({
    name: 'test_sampling',
    description: 'Asks the client to sample an LLM completion for the prompt and returns it.',
    inputSchema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } },
      required: ['prompt'],
    },
    handler: async (args, ctx) => {
      const prompt = requireString(args, 'prompt');
      const result = await askClient('sampling', () =>
        ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 }),
      );
      return `LLM response: ${sampledText(result)}`;
    },
  });

  registry.registerTool({
    name: 'test_elicitation',
    description: 'Asks the user for a username and an email address and returns the answer.',
    inputSchema: {
      type: 'object',
      properties: { message: { type: 'string', description: 'The message to show the user' } },
      required: ['message'],
    },
    handler: async (args, ctx) => {
      const result = await elicit(ctx, { message: requireString(args, 'message'), requestedSchema: USER_INFO_SCHEMA });
      return `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  });

  registry.registerTool({
    name: 'test_elicitation_sep1034_defaults',
    description: 'Asks the user for a form whose every primitive field has a default (SEP-1034).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const result = await elicit(ctx, {
        message: 'Please review and update the form fields with defaults',
        requestedSchema: DEFAULTS_SCHEMA,
      });
      return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  });

  registry.registerTool({
    name: 'test_elicitation_sep1330_enums',
    description: 'Asks the user for a form with all five enum shapes (SEP-1330).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const result = await elicit(ctx, { message: 'Please select options from the enum fields', requestedSchema: ENUMS_SCHEMA });
      return `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`;
    },
  });

  registry.registerTool({
    name: 'test_reconnection',
    description:
      'Answers after a step (SEP-1699). The HTTP transport keeps every SSE event, so a client that loses the stream mid-call resumes it with Last-Event-ID.',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      await sleep(stepDelayMs, { scheduler, signal: ctx.signal });
      return 'Reconnection test completed successfully';
    },
  });
}
