/**
 * The client side of the 0.2.0-alpha.12 fixture tests: an official SDK
 * Client (the 2025-11-25 era) on a fresh everything server, declaring the
 * capabilities a test asks for and answering each input request the way the
 * conformance suite's MRTR client does (a name, a confirmation, a color, a
 * context, a sampled answer, one root), recording what it was asked, the log
 * lines and the list-changed notifications it got.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../lib/index.js';
import { connectToFreshFixture, type Asked } from './everything-client.js';
import type { TransportUnderTest } from './transports.js';

/** The tools after the 0.1.16 ones (json_schema_2020_12_tool last among those), in listing order. */
export const MODERN_FIXTURE_TOOLS = [
  'test_x_mcp_header',
  'test_input_required_result_elicitation',
  'test_input_required_result_sampling',
  'test_input_required_result_list_roots',
  'test_input_required_result_request_state',
  'test_input_required_result_tampered_state',
  'test_input_required_result_multiple_inputs',
  'test_input_required_result_multi_round',
  'test_input_required_result_capabilities',
  'test_list_change_marker',
  'test_missing_capability',
  'test_streaming_elicitation',
  'test_logging_tool',
  'test_trigger_tool_change',
  'test_trigger_prompt_change',
  // The tasks extension's (task-tools.ts).
  'greet',
  'slow_compute',
  'failing_job',
  'protocol_error_job',
  'confirm_delete',
  'multi_input',
  'test_tool_with_task',
];

/** What the client answers, by the requested form's first property. */
const FORM_ANSWERS: Record<string, unknown> = { name: 'Alice', ok: true, color: 'blue', context: 'a conformance run' };

export const ROOT = { uri: 'file:///workspace', name: 'workspace' };

export interface ModernFixtureSession {
  readonly server: McpServer;
  readonly client: Client;
  readonly asked: Asked[];
  readonly logs: unknown[];
  /** 'tools' / 'prompts' per list_changed notification, in order. */
  readonly changes: string[];
  close(): Promise<void>;
}

export type Capability = 'sampling' | 'elicitation' | 'roots';

export async function connectModernFixture(
  transport: TransportUnderTest,
  capabilities: readonly Capability[] = ['sampling', 'elicitation', 'roots'],
): Promise<ModernFixtureSession> {
  const asked: Asked[] = [];
  const logs: unknown[] = [];
  const changes: string[] = [];
  const declared = Object.fromEntries(capabilities.map((c) => [c, {}]));
  const client = new Client({ name: 'modern-fixture-test', version: '1.0.0' }, { capabilities: declared });
  if (capabilities.includes('sampling')) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push({ method: request.method, params: request.params });
      return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
    });
  }
  if (capabilities.includes('elicitation')) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push({ method: request.method, params: request.params });
      const field = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {})[0];
      return field !== undefined && field in FORM_ANSWERS ? { action: 'accept', content: { [field]: FORM_ANSWERS[field] } } : { action: 'decline' };
    });
  }
  if (capabilities.includes('roots')) {
    client.setRequestHandler(ListRootsRequestSchema, async (request) => {
      asked.push({ method: request.method, params: request.params });
      return { roots: [ROOT] };
    });
  }
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push('tools'));
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void changes.push('prompts'));
  const { server, close } = await connectToFreshFixture(transport, client);
  return { server, client, asked, logs, changes, close };
}
