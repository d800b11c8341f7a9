/**
 * The conformance fixture's other surfaces, over every transport with the
 * official SDK Client: initialize, ping, logging level, resources (read,
 * templates, subscriptions), prompts and completion, with exact outputs.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '../../lib/index.js';
import { connectEverything, PNG, type EverythingSession } from './everything-client.js';
import { TRANSPORTS } from './transports.js';

describe.each(TRANSPORTS)("the fixture's initialize, resources, prompts and completion over $name", (transport) => {
  let session: EverythingSession;
  let server: McpServer;
  let client: Client;

  beforeEach(async () => {
    session = await connectEverything(transport);
    ({ server, client } = session);
  });

  afterEach(() => session.close());

  test('initialize: server info and every capability the scenarios rely on', () => {
    expect(client.getServerVersion()).toEqual({ name: 'rxmcp-everything', version: expect.any(String) });
    expect(client.getServerCapabilities()).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
      tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
      extensions: { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/skills': { directoryRead: true } },
    });
  });

  test('ping and logging/setLevel answer {}', async () => {
    expect(await client.ping()).toEqual({});
    expect(await client.setLoggingLevel('info')).toEqual({});
  });

  test('resources/list and resources/templates/list', async () => {
    expect(await client.listResources()).toEqual({
      resources: [
        { uri: 'test://static-text', name: 'Static Text Resource', description: 'A static text resource for testing', mimeType: 'text/plain' },
        {
          uri: 'test://static-binary',
          name: 'Static Binary Resource',
          description: 'A static binary resource (a 1x1 red PNG) for testing',
          mimeType: 'image/png',
        },
        { uri: 'test://watched-resource', name: 'Watched Resource', description: 'A resource a client may subscribe to', mimeType: 'text/plain' },
        // The Skills extension's files (examples/everything/skills.ts), the SKILL.md named and described by its frontmatter.
        {
          uri: 'skill://conformance-demo/SKILL.md',
          name: 'conformance-demo',
          description: 'Shows how an rxmcp server publishes a skill over MCP',
          mimeType: 'text/markdown',
          size: expect.any(Number),
        },
        { uri: 'skill://conformance-demo/references/GUIDE.md', name: 'GUIDE.md', mimeType: 'text/markdown', size: expect.any(Number) },
        { uri: 'skill://conformance-demo/templates/report.md', name: 'report.md', mimeType: 'text/markdown', size: expect.any(Number) },
      ],
    });
    expect(await client.listResourceTemplates()).toEqual({
      resourceTemplates: [
        {
          uriTemplate: 'test://template/{id}/data',
          name: 'Resource Template',
          description: 'A resource template whose id is substituted into the data',
          mimeType: 'application/json',
        },
      ],
    });
  });

  test('resources/read: static text, static binary, watched, templated', async () => {
    expect(await client.readResource({ uri: 'test://static-text' })).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    expect(await client.readResource({ uri: 'test://static-binary' })).toEqual({
      contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PNG }],
    });
    expect(await client.readResource({ uri: 'test://watched-resource' })).toEqual({
      contents: [{ uri: 'test://watched-resource', mimeType: 'text/plain', text: 'Watched resource content' }],
    });
    expect(await client.readResource({ uri: 'test://template/123/data' })).toEqual({
      contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }],
    });
  });

  test('resources/subscribe delivers updates for that URI; unsubscribe stops them', async () => {
    const updates: unknown[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
    expect(await client.subscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    server.resourceUpdated('test://static-text');
    server.resourceUpdated('test://watched-resource');
    await client.ping(); // a round trip: anything sent before its reply has arrived
    expect(updates).toEqual([{ uri: 'test://watched-resource' }]);
    expect(await client.unsubscribeResource({ uri: 'test://watched-resource' })).toEqual({});
    server.resourceUpdated('test://watched-resource');
    await client.ping();
    expect(updates).toEqual([{ uri: 'test://watched-resource' }]);
  });

  test('prompts/list', async () => {
    expect(await client.listPrompts()).toEqual({
      prompts: [
        { name: 'test_simple_prompt', description: 'A simple prompt without arguments' },
        {
          name: 'test_prompt_with_arguments',
          description: 'A prompt with two required arguments',
          arguments: [
            { name: 'arg1', description: 'First test argument', required: true },
            { name: 'arg2', description: 'Second test argument', required: true },
          ],
        },
        {
          name: 'test_prompt_with_embedded_resource',
          description: 'A prompt that embeds the resource it is given',
          arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
        },
        { name: 'test_prompt_with_image', description: 'A prompt with an image' },
        { name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for its context first (input key user_context).' },
        { name: 'test_list_change_marker_prompt', description: 'Re-registered by test_trigger_prompt_change, so the prompt list changes.' },
      ],
    });
  });

  test('prompts/get: simple, with arguments, with an embedded resource, with an image', async () => {
    expect(await client.getPrompt({ name: 'test_simple_prompt' })).toEqual({
      description: 'A simple prompt without arguments',
      messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    });
    expect(await client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'testValue1', arg2: 'testValue2' } })).toEqual({
      description: 'A prompt with two required arguments',
      messages: [{ role: 'user', content: { type: 'text', text: "Prompt with arguments: arg1='testValue1', arg2='testValue2'" } }],
    });
    expect(await client.getPrompt({ name: 'test_prompt_with_embedded_resource', arguments: { resourceUri: 'test://example-resource' } })).toEqual({
      description: 'A prompt that embeds the resource it is given',
      messages: [
        {
          role: 'user',
          content: { type: 'resource', resource: { uri: 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    });
    expect(await client.getPrompt({ name: 'test_prompt_with_image' })).toEqual({
      description: 'A prompt with an image',
      messages: [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    });
  });

  test('prompts/get without a required argument is -32602', async () => {
    await expect(client.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'x' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Missing required argument: arg2'),
    });
  });

  test('completion/complete: prompt argument and template variable', async () => {
    expect(
      await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'test' } }),
    ).toEqual({ completion: { values: ['test-value-1', 'test-value-2'], total: 2, hasMore: false } });
    expect(
      await client.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'par' } }),
    ).toEqual({ completion: { values: ['paris', 'park', 'party'], total: 3, hasMore: false } });
    expect(
      await client.complete({ ref: { type: 'ref/resource', uri: 'test://template/{id}/data' }, argument: { name: 'id', value: '4' } }),
    ).toEqual({ completion: { values: ['456'], total: 1, hasMore: false } });
  });
});
