/**
 * The diagnostic tools of the 2026-07-28 `server-stateless` scenario
 * (SEP-2575), usable on both eras:
 * - test_missing_capability needs sampling: a modern request that did not
 *   declare it gets -32021 with `requiredCapabilities: { sampling: {} }`;
 * - test_streaming_elicitation elicits through input-rounds.ts, so its
 *   response stream never carries a request on the modern wire;
 * - test_logging_tool logs through the request context (sent on modern only
 *   when the request named a log level);
 * - test_trigger_tool_change / test_trigger_prompt_change re-register a
 *   marker tool / prompt, which publishes a list change.
 */
import type { Registry } from '../../lib/index.js';
import { askInputs } from './input-rounds.js';
import { sampledText } from './input-required-tools.js';

const NO_ARGUMENTS = { type: 'object', properties: {} } as const;

export const MARKER_TOOL = 'test_list_change_marker';
export const MARKER_PROMPT = 'test_list_change_marker_prompt';

export function registerStatelessTools(registry: Registry): void {
  const markerTool = {
    name: MARKER_TOOL,
    description: 'Re-registered by test_trigger_tool_change, so the tool list changes.',
    inputSchema: NO_ARGUMENTS,
    handler: () => 'marker',
  };
  const markerPrompt = {
    name: MARKER_PROMPT,
    description: 'Re-registered by test_trigger_prompt_change, so the prompt list changes.',
    get: () => 'marker',
  };
  registry.registerTool(markerTool);
  registry.registerPrompt(markerPrompt);

  registry.registerTool({
    name: 'test_missing_capability',
    description: 'Needs the sampling client capability: asks the client to sample a short answer.',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      const { probe } = await askInputs(ctx, {
        probe: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Say ok.' } }], maxTokens: 10 } },
      });
      return `Sampling capability used: ${sampledText(probe)}`;
    },
  });

  registry.registerTool({
    name: 'test_streaming_elicitation',
    description: 'Logs, then asks the user for a confirmation (input key confirmation).',
    inputSchema: NO_ARGUMENTS,
    handler: async (_args, ctx) => {
      ctx.log('info', 'Asking for a confirmation');
      const { confirmation } = await askInputs(ctx, {
        confirmation: {
          method: 'elicitation/create',
          params: { message: 'Continue?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } },
        },
      });
      return `Streaming elicitation completed: action=${confirmation.action}`;
    },
  });

  registry.registerTool({
    name: 'test_logging_tool',
    description: 'Sends one info log message through the request context.',
    inputSchema: NO_ARGUMENTS,
    handler: (_args, ctx) => {
      ctx.log('info', 'test_logging_tool ran');
      return 'Logging tool completed';
    },
  });

  registry.registerTool({
    name: 'test_trigger_tool_change',
    description: `Re-registers ${MARKER_TOOL}: a tools list change.`,
    inputSchema: NO_ARGUMENTS,
    handler: () => {
      registry.registerTool(markerTool, { replace: true });
      return 'Tool list changed';
    },
  });

  registry.registerTool({
    name: 'test_trigger_prompt_change',
    description: `Re-registers ${MARKER_PROMPT}: a prompts list change.`,
    inputSchema: NO_ARGUMENTS,
    handler: () => {
      registry.registerPrompt(markerPrompt, { replace: true });
      return 'Prompt list changed';
    },
  });
}
