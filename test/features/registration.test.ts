/**
 * Registration rules: a taken name is a ConfigError unless `replace: true`
 * (a derived tool replaces a derived one, as a session's view re-registers);
 * tool names outside the spec's rule are warned about once; a schema without
 * `type: "object"` at its root is refused with the fix in the message.
 */
import { describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ConfigError, createServer, Registry, type Logger, type ToolDef } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';

const tool = (name: string, reply = name): ToolDef => ({ name, handler: () => reply });
const read = () => 'x';

function thrown(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

async function callText(registry: Registry, name: string): Promise<string> {
  const reply = (await createServer({ registry }).handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name } })) as {
    result: { content: Array<{ text: string }> };
  };
  return reply.result.content[0]!.text;
}

function spyLogger() {
  return { debug: vi.fn(), info: vi.fn(), warn: vi.fn<(obj: unknown, msg?: string) => void>(), error: vi.fn() } satisfies Logger;
}

describe('a name registered twice', () => {
  test('a second tool of the same name is a ConfigError naming it, and the first stays', async () => {
    const registry = new Registry().registerTool(tool('echo', 'first'));
    const error = thrown(() => registry.registerTool(tool('echo', 'second')));
    expect(error.message).toBe('tool "echo" is already registered; unregister it first, or pass { replace: true } to replace it');
    expect(error.option).toBe('name');
    expect(await callText(registry, 'echo')).toBe('first');
  });

  test('replace: true replaces it, and announces the change', async () => {
    const registry = new Registry().registerTool(tool('echo', 'first'));
    const changes: string[] = [];
    registry.changes$.subscribe((change) => changes.push(change));
    registry.registerTool(tool('echo', 'second'), { replace: true });
    expect(await callText(registry, 'echo')).toBe('second');
    expect(registry.tools()).toHaveLength(1);
    expect(changes).toEqual(['tools']);
  });

  test('after unregistering, the name is free again', () => {
    const registry = new Registry().registerTool(tool('echo'));
    registry.unregisterTool('echo');
    expect(() => registry.registerTool(tool('echo'))).not.toThrow();
  });

  test('a derived tool replaces a derived one (a session view re-registering), but never a static one, nor the other way round', async () => {
    const registry = new Registry().registerTool(tool('view.button', 'v1'), { derived: true });
    registry.registerTool(tool('view.button', 'v2'), { derived: true });
    expect(await callText(registry, 'view.button')).toBe('v2');
    registry.registerTool(tool('static'));
    expect(thrown(() => registry.registerTool(tool('static'), { derived: true })).message).toContain('tool "static" is already registered');
    expect(thrown(() => registry.registerTool(tool('view.button'))).message).toContain('tool "view.button" is already registered');
    registry.registerTool(tool('view.button', 'now static'), { replace: true });
    // Replacing keeps the tool's place in tools/list.
    expect(registry.staticTools().map((t) => t.name)).toEqual(['view.button', 'static']);
  });

  test('registerTools registers all or none: a duplicate inside the batch or a taken name refuses the whole batch', () => {
    const registry = new Registry().registerTool(tool('taken'));
    expect(thrown(() => registry.registerTools([tool('a'), tool('b'), tool('a')])).message).toContain('tool "a"');
    expect(thrown(() => registry.registerTools([tool('c'), tool('taken')])).message).toContain('tool "taken"');
    expect(registry.tools().map((t) => t.name)).toEqual(['taken']);
    registry.registerTools([tool('c'), tool('taken', 'new')], { replace: true });
    expect(registry.tools().map((t) => t.name)).toEqual(['taken', 'c']);
  });

  test.each([
    ['resource', 'uri', 'resource "notes://all"', (r: Registry, o?: { replace: boolean }) => r.registerResource({ uri: 'notes://all', name: 'notes', read }, o)],
    [
      'resource template',
      'uriTemplate',
      'resource template "notes://{id}"',
      (r: Registry, o?: { replace: boolean }) => r.registerResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', read }, o),
    ],
    ['prompt', 'name', 'prompt "summarize"', (r: Registry, o?: { replace: boolean }) => r.registerPrompt({ name: 'summarize', get: read }, o)],
  ])('a second %s under the same key is a ConfigError naming it; replace: true replaces', (_kind, option, named, register) => {
    const registry = new Registry();
    register(registry);
    const error = thrown(() => register(registry));
    expect(error.message).toBe(`${named} is already registered; unregister it first, or pass { replace: true } to replace it`);
    expect(error.option).toBe(option);
    expect(() => register(registry, { replace: true })).not.toThrow();
  });
});

describe('tool names', () => {
  test.each(['echo', 'a', 'x'.repeat(128), 'ns.tool-name_2', 'A.B-C_d'])('%s follows the rule: no warning', (name) => {
    const logger = spyLogger();
    new Registry({ logger }).registerTool(tool(name));
    expect(logger.warn).not.toHaveBeenCalled();
  });

  test.each(['has space', 'slash/name', 'x'.repeat(129), 'émoji', 'colon:name'])('%j is outside it: registered, with one warning', async (name) => {
    const logger = spyLogger();
    const registry = new Registry({ logger }).registerTool(tool(name, 'ran'));
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]![0]).toEqual({ tool: name });
    expect(logger.warn.mock.calls[0]![1]).toContain('outside the MCP rule (1-128 characters of A-Z a-z 0-9 _ - .)');
    expect(await callText(registry, name)).toBe('ran');
  });

  test('once per name: replacing or re-deriving the tool does not warn again', () => {
    const logger = spyLogger();
    const registry = new Registry({ logger });
    registry.registerTool(tool('a b'), { derived: true });
    registry.registerTool(tool('a b'), { derived: true });
    registry.registerTool(tool('a b'), { replace: true });
    registry.unregisterTool('a b');
    registry.registerTool(tool('a b'));
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  test('a registry without a logger warns through the first server given it, for tools registered before and after', () => {
    const registry = new Registry().registerTool(tool('before server'));
    const logger = spyLogger();
    createServer({ registry, logger });
    expect(logger.warn).toHaveBeenCalledTimes(1);
    registry.registerTool(tool('after server'));
    expect(logger.warn.mock.calls.map((c) => c[0])).toEqual([{ tool: 'before server' }, { tool: 'after server' }]);
    const second = spyLogger();
    createServer({ registry, logger: second });
    expect(second.warn).not.toHaveBeenCalled();
  });

  test('the Registry logger option is validated', () => {
    expect(thrown(() => new Registry({ logger: {} as Logger })).option).toBe('logger');
    expect(thrown(() => new Registry(null as never)).option).toBe('options');
  });
});

describe('a schema must have type: "object" at its root', () => {
  const handler = () => '';

  test.each([
    ['inputSchema', { type: 'string' }, 'got type: "string"', 'wrap it: { type: "object", properties: { value: <your schema> }, required: ["value"] }'],
    ['inputSchema', { type: ['object', 'null'] }, 'got type: ["object","null"]', 'wrap it:'],
    ['inputSchema', {}, 'got no type', 'wrap it:'],
    ['inputSchema', { properties: { a: { type: 'string' } } }, 'got no type', 'add type: "object" beside its properties'],
    ['outputSchema', { type: 'array', items: { type: 'number' } }, 'got type: "array"', 'wrap it:'],
    ['inputSchema', true, 'got a boolean', 'wrap it:'],
    ['inputSchema', [], 'got a array', 'wrap it:'],
  ])('%s %j is refused at registration, the message showing the fix', (field, schema, got, fix) => {
    const error = thrown(() => new Registry().registerTool({ name: 'x', [field]: schema, handler } as ToolDef));
    expect(error.option).toBe(field);
    expect(error.message).toContain(`${field} of tool "x" must have type: "object" at its root (${got})`);
    expect(error.message).toContain(fix);
  });

  test('a Standard Schema of something else is refused the same way, the fix in its library', () => {
    const error = thrown(() => new Registry().registerTool({ name: 'x', inputSchema: z.string(), handler } as unknown as ToolDef));
    expect(error.message).toContain('inputSchema of tool "x" must have type: "object" at its root (got type: "string")');
    expect(error.message).toContain('wrap it in an object schema, e.g. z.object({ value: schema })');
  });

  test('so the official client can always list the tools (before, one such tool made its tools/list throw)', async () => {
    const registry = new Registry().registerTool({ name: 'fine', inputSchema: { type: 'object' }, handler });
    expect(() => registry.registerTool({ name: 'bad', inputSchema: { type: 'string' }, handler })).toThrow(ConfigError);
    const client = new Client({ name: 'sdk', version: '1' });
    await client.connect(new MemoryClientTransport(createServer({ registry })));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['fine']);
    } finally {
      await client.close();
    }
  });
});
