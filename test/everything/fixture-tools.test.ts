/**
 * Every tool of the conformance fixture, listed and called with the official
 * SDK Client over every transport, with its exact output (and, for the tools
 * that ask the client something, the exact request the client got).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectEverything, PNG, WAV, type Asked, type EverythingSession } from './everything-client.js';
import { MODERN_FIXTURE_TOOLS } from './modern-fixture-client.js';
import { TRANSPORTS } from './transports.js';

const NO_ARGUMENTS = { type: 'object', properties: {} };

describe.each(TRANSPORTS)("the fixture's tools over $name", (transport) => {
  let session: EverythingSession;
  let client: Client;
  let asked: Asked[];
  let logs: unknown[];

  beforeEach(async () => {
    session = await connectEverything(transport);
    ({ client, asked, logs } = session);
  });

  afterEach(() => session.close());

  test('tools/list: every tool, schemas untouched', async () => {
    const { tools } = await client.listTools();
    // The 0.2.0-alpha.12 tools after these have their exact listings in modern-fixture.test.ts.
    expect(tools.slice(14).map((tool) => tool.name)).toEqual(MODERN_FIXTURE_TOOLS);
    expect(tools.slice(0, 14)).toEqual([
      { name: 'test_simple_text', description: 'Returns one text item.', inputSchema: NO_ARGUMENTS },
      { name: 'test_image_content', description: 'Returns one image item: a 1x1 red PNG.', inputSchema: NO_ARGUMENTS },
      { name: 'test_audio_content', description: 'Returns one audio item: a tiny silent WAV.', inputSchema: NO_ARGUMENTS },
      { name: 'test_embedded_resource', description: 'Returns one embedded text resource.', inputSchema: NO_ARGUMENTS },
      { name: 'test_multiple_content_types', description: 'Returns a text, an image and an embedded resource.', inputSchema: NO_ARGUMENTS },
      { name: 'test_tool_with_logging', description: 'Sends three info log messages while it runs, a step apart.', inputSchema: NO_ARGUMENTS },
      { name: 'test_error_handling', description: 'Always fails with a tool error.', inputSchema: NO_ARGUMENTS },
      { name: 'test_tool_with_progress', description: 'Reports progress 0, 50 and 100 of 100, a step apart.', inputSchema: NO_ARGUMENTS },
      {
        name: 'test_sampling',
        description: 'Asks the client to sample an LLM completion for the prompt and returns it.',
        inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
      },
      {
        name: 'test_elicitation',
        description: 'Asks the user for a username and an email address and returns the answer.',
        inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
      },
      {
        name: 'test_elicitation_sep1034_defaults',
        description: 'Asks the user for a form whose every primitive field has a default (SEP-1034).',
        inputSchema: NO_ARGUMENTS,
      },
      { name: 'test_elicitation_sep1330_enums', description: 'Asks the user for a form with all five enum shapes (SEP-1330).', inputSchema: NO_ARGUMENTS },
      {
        name: 'test_reconnection',
        description:
          'Answers after a step (SEP-1699). The HTTP transport keeps every SSE event, so a client that loses the stream mid-call resumes it with Last-Event-ID.',
        inputSchema: NO_ARGUMENTS,
      },
      {
        name: 'json_schema_2020_12_tool',
        description: 'Tool with JSON Schema 2020-12 features',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
          properties: {
            name: { type: 'string' },
            address: { $ref: '#/$defs/address' },
            contactMethod: { type: 'string', enum: ['phone', 'email'] },
            phone: { type: 'string' },
            email: { type: 'string' },
          },
          allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
          if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
          then: { required: ['phone'] },
          else: { required: ['email'] },
          additionalProperties: false,
        },
      },
    ]);
  });

  test('content tools: text, image, audio, embedded resource, all of them mixed', async () => {
    expect(await client.callTool({ name: 'test_simple_text' })).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
    expect(await client.callTool({ name: 'test_image_content', arguments: {} })).toEqual({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
    });
    expect(await client.callTool({ name: 'test_audio_content', arguments: {} })).toEqual({
      content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
    });
    expect(await client.callTool({ name: 'test_embedded_resource', arguments: {} })).toEqual({
      content: [
        { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } },
      ],
    });
    expect(await client.callTool({ name: 'test_multiple_content_types', arguments: {} })).toEqual({
      content: [
        { type: 'text', text: 'Multiple content types test:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: '{"test":"data","value":123}' } },
      ],
    });
  });

  test('test_error_handling: an isError result with its message', async () => {
    expect(await client.callTool({ name: 'test_error_handling', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
      isError: true,
    });
  });

  test('test_tool_with_logging: three info lines before the result', async () => {
    await client.setLoggingLevel('debug');
    expect(await client.callTool({ name: 'test_tool_with_logging', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Logging test completed' }],
    });
    expect(logs).toEqual([
      { level: 'info', data: 'Tool execution started' },
      { level: 'info', data: 'Tool processing data' },
      { level: 'info', data: 'Tool execution completed' },
    ]);
  });

  test('test_tool_with_logging: a level above info silences it', async () => {
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'test_tool_with_logging', arguments: {} });
    expect(logs).toEqual([]);
  });

  test('test_tool_with_progress: 0, 50, 100 of 100 with the request token', async () => {
    const progress: unknown[] = [];
    const result = await client.request(
      { method: 'tools/call', params: { name: 'test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } } },
      CallToolResultSchema,
      { onprogress: (p) => void progress.push(p) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'Progress test completed' }] });
    expect(progress).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
  });

  test('test_sampling: asks sampling/createMessage and returns its text', async () => {
    expect(await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Test prompt for sampling' } })).toEqual({
      content: [{ type: 'text', text: 'LLM response: a sampled answer' }],
    });
    expect(asked).toEqual([
      {
        method: 'sampling/createMessage',
        params: { messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt for sampling' } }], maxTokens: 100 },
      },
    ]);
  });

  test('test_elicitation: asks for username and email and returns the answer', async () => {
    expect(await client.callTool({ name: 'test_elicitation', arguments: { message: 'Please provide your information' } })).toEqual({
      content: [{ type: 'text', text: 'User response: action=accept, content={"username":"testuser","email":"test@example.com"}' }],
    });
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        params: {
          message: 'Please provide your information',
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        },
      },
    ]);
  });

  test('test_elicitation_sep1034_defaults: every primitive field carries its default', async () => {
    expect(await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} })).toEqual({
      content: [
        {
          type: 'text',
          text: 'Elicitation completed: action=accept, content={"name":"Jane Smith","age":25,"score":88,"status":"inactive","verified":false}',
        },
      ],
    });
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        params: {
          message: 'Please review and update the form fields with defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
            required: [],
          },
        },
      },
    ]);
  });

  test('test_elicitation_sep1330_enums: the five enum shapes, and a decline reported as such', async () => {
    expect(await client.callTool({ name: 'test_elicitation_sep1330_enums', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Elicitation completed: action=decline, content={}' }],
    });
    expect(asked).toEqual([
      {
        method: 'elicitation/create',
        params: {
          message: 'Please select options from the enum fields',
          requestedSchema: {
            type: 'object',
            properties: {
              untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
              titledSingle: {
                type: 'string',
                description: 'Titled single-select',
                oneOf: [
                  { const: 'value1', title: 'First Option' },
                  { const: 'value2', title: 'Second Option' },
                  { const: 'value3', title: 'Third Option' },
                ],
              },
              legacyEnum: {
                type: 'string',
                description: 'Legacy titled enum (enumNames, deprecated)',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: { type: 'array', description: 'Untitled multi-select', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
              titledMulti: {
                type: 'array',
                description: 'Titled multi-select',
                items: {
                  anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                  ],
                },
              },
            },
            required: [],
          },
        },
      },
    ]);
  });

  test('test_reconnection: answers', async () => {
    expect(await client.callTool({ name: 'test_reconnection', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Reconnection test completed successfully' }],
    });
  });

  test('json_schema_2020_12_tool: arguments are validated against the 2020-12 schema ($ref into $defs, allOf/anyOf, if/then/else)', async () => {
    const args = { name: 'Ada', address: { city: 'London' }, contactMethod: 'phone', phone: '555-0100' };
    expect(await client.callTool({ name: 'json_schema_2020_12_tool', arguments: args })).toEqual({
      content: [{ type: 'text', text: `Received: ${JSON.stringify(args)}` }],
    });
    const noPhone = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { contactMethod: 'phone', email: 'ada@example.com' } });
    expect(noPhone).toMatchObject({ isError: true });
    expect(JSON.stringify(noPhone)).toContain("must have required property 'phone'");
    const rejected = await client.callTool({ name: 'json_schema_2020_12_tool', arguments: { email: 'ada@example.com', address: { city: 7 } } });
    expect(rejected).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool json_schema_2020_12_tool: arguments/address/city must be string' }],
      isError: true,
    });
  });
});
