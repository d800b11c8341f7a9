/**
 * Standard Schema validators (zod 4, valibot, arktype) as a tool's
 * inputSchema/outputSchema: listed as the JSON Schema their own library
 * converts them to, arguments and results validated by their own `validate`
 * (sync or async) with the same isError shape as a JSON Schema failure, and
 * the handler given the validated output (defaults and transforms applied).
 */
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { toJsonSchema, toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ConfigError, createServer, Registry, type StandardSchemaV1, type ToolDef } from '../../lib/index.js';
import { MemoryClientTransport } from '../../transports/index.js';

type Reply = { result: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: unknown; tools?: Array<Record<string, unknown>> } };

const call = async (registry: Registry, name: string, args: unknown) =>
  (await createServer({ registry }).handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })) as Reply;

const listed = async (registry: Registry) =>
  ((await createServer({ registry }).handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' })) as Reply).result.tools!;

describe.each([
  ['zod', () => z.object({ a: z.number(), b: z.string() })],
  ['valibot', () => toStandardJsonSchema(v.object({ a: v.number(), b: v.string() }))],
  ['arktype', () => type({ a: 'number', b: 'string' })],
])('%s inputSchema', (vendor, schema) => {
  function registry() {
    const seen: unknown[] = [];
    const reg = new Registry().registerTool({
      name: 'pair',
      inputSchema: schema(),
      handler: (args) => {
        seen.push(args);
        return `${args.b}${args.a + 1}`;
      },
    });
    return { reg, seen };
  }

  test('tools/list carries the JSON Schema the library converts it to', async () => {
    const [tool] = await listed(registry().reg);
    expect(tool!.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' } },
      required: expect.arrayContaining(['a', 'b']),
    });
    expect(tool!.inputSchema).not.toHaveProperty('~standard');
  });

  test('valid arguments reach the handler', async () => {
    const { reg, seen } = registry();
    expect((await call(reg, 'pair', { a: 1, b: 'x' })).result).toEqual({ content: [{ type: 'text', text: 'x2' }] });
    expect(seen).toEqual([{ a: 1, b: 'x' }]);
  });

  test(`invalid arguments are an isError result naming the path, and the handler never runs (${vendor})`, async () => {
    const { reg, seen } = registry();
    const reply = await call(reg, 'pair', { a: 'one', b: 'x' });
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]!.text).toMatch(/^Invalid arguments for tool pair: arguments\/a /);
    expect(seen).toEqual([]);
  });
});

describe('the handler gets the validated value', () => {
  test('zod defaults and transforms are applied; tools/list shows the input side (a defaulted field is optional)', async () => {
    const seen: unknown[] = [];
    const reg = new Registry().registerTool({
      name: 'greet',
      inputSchema: z.object({ name: z.string().transform((s) => s.toUpperCase()), times: z.number().default(2) }),
      handler: (args) => {
        seen.push(args);
        return args.name.repeat(args.times);
      },
    });
    expect((await call(reg, 'greet', { name: 'ab' })).result.content[0]!.text).toBe('ABAB');
    expect(seen).toEqual([{ name: 'AB', times: 2 }]);
    const [tool] = await listed(reg);
    expect(tool!.inputSchema).toMatchObject({ type: 'object', required: ['name'] });
  });

  test('an async validator (zod async refinement) is awaited before the handler runs', async () => {
    let runs = 0;
    const reg = new Registry().registerTool({
      name: 'slow_check',
      inputSchema: z.object({ n: z.number().refine(async (n) => n > 0, 'must be positive') }),
      handler: ({ n }) => (runs++, `n=${n}`),
    });
    expect((await call(reg, 'slow_check', { n: 3 })).result).toEqual({ content: [{ type: 'text', text: 'n=3' }] });
    const bad = await call(reg, 'slow_check', { n: -1 });
    expect(bad.result).toEqual({ content: [{ type: 'text', text: 'Invalid arguments for tool slow_check: arguments/n must be positive' }], isError: true });
    expect(runs).toBe(1);
  });
});

describe('Standard Schema outputSchema', () => {
  const outputSchema = z.object({ sum: z.number(), unit: z.string().default('m') });

  test('a matching result is sent as structuredContent, after the schema (its default applied), with its JSON as text', async () => {
    const reg = new Registry().registerTool({ name: 'add', outputSchema, handler: () => ({ sum: 3 }) });
    expect((await call(reg, 'add', {})).result).toEqual({
      content: [{ type: 'text', text: '{"sum":3,"unit":"m"}' }],
      structuredContent: { sum: 3, unit: 'm' },
    });
    const [tool] = await listed(reg);
    expect(tool!.outputSchema).toMatchObject({ type: 'object', properties: { sum: { type: 'number' } }, required: ['sum', 'unit'] });
  });

  test('a CallToolResult keeps its own content; its structuredContent is the validated value', async () => {
    const reg = new Registry().registerTool({
      name: 'add',
      outputSchema,
      handler: () => ({ content: [{ type: 'text', text: 'three metres' }], structuredContent: { sum: 3 } }),
    });
    expect((await call(reg, 'add', {})).result).toEqual({
      content: [{ type: 'text', text: 'three metres' }],
      structuredContent: { sum: 3, unit: 'm' },
    });
  });

  test('a result that breaks it is an isError result naming the path', async () => {
    const reg = new Registry().registerTool({ name: 'add', outputSchema, handler: async () => ({ sum: 'three' }) as never });
    const reply = await call(reg, 'add', {});
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]!.text).toMatch(/^Tool add returned structuredContent that does not match its outputSchema: structuredContent\/sum /);
  });

  test('an async output validator is awaited', async () => {
    const reg = new Registry().registerTool({
      name: 'checked',
      outputSchema: z.object({ ok: z.boolean().refine(async (ok) => ok, 'must be ok') }),
      handler: ({ ok }) => ({ ok: ok === true }),
    });
    expect((await call(reg, 'checked', { ok: true })).result.structuredContent).toEqual({ ok: true });
    expect((await call(reg, 'checked', { ok: false })).result).toMatchObject({
      isError: true,
      content: [{ text: 'Tool checked returned structuredContent that does not match its outputSchema: structuredContent/ok must be ok' }],
    });
  });
});

describe('conversion to JSON Schema', () => {
  test('a valibot schema without a converter is refused, saying to wrap it with toStandardJsonSchema', () => {
    const def = { name: 'bare', inputSchema: v.object({ a: v.number() }), handler: () => '' };
    const error = captureError(() => new Registry().registerTool(def));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe('inputSchema');
    expect((error as Error).message).toContain('inputSchema of tool "bare" is a valibot schema that cannot convert itself to JSON Schema');
    expect((error as Error).message).toContain('toStandardJsonSchema() from @valibot/to-json-schema');
  });

  test('new Registry({ toJsonSchema }) converts what cannot convert itself, for input and output', async () => {
    const calls: string[] = [];
    const reg = new Registry({
      toJsonSchema: (schema, io) => {
        calls.push(`${schema['~standard'].vendor}:${io}`);
        return toJsonSchema(schema as never) as Record<string, unknown>;
      },
    }).registerTool({
      name: 'bare',
      inputSchema: v.object({ a: v.number() }),
      outputSchema: v.object({ b: v.number() }),
      handler: ({ a }) => ({ b: a * 2 }),
    });
    expect(calls).toEqual(['valibot:input', 'valibot:output']);
    const [tool] = await listed(reg);
    expect(tool!.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' } } });
    expect((await call(reg, 'bare', { a: 2 })).result.structuredContent).toEqual({ b: 4 });
    expect((await call(reg, 'bare', { a: 'x' })).result.isError).toBe(true);
  });

  test('a schema with only a toJsonSchema() method of its own (older arktype) is converted by it', async () => {
    const schema = {
      '~standard': { version: 1 as const, vendor: 'older', validate: (value: unknown) => ({ value: value as Record<string, unknown> }) },
      toJsonSchema: () => ({ type: 'object', properties: { q: { type: 'string' } } }),
    } satisfies StandardSchemaV1<unknown, Record<string, unknown>> & { toJsonSchema(): unknown };
    const [tool] = await listed(new Registry().registerTool({ name: 'old', inputSchema: schema, handler: () => '' }));
    expect(tool!.inputSchema).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });

  test('a converter that throws is a ConfigError naming the tool and the schema', () => {
    const error = captureError(() =>
      new Registry().registerTool({ name: 'dated', inputSchema: z.object({ when: z.date() }), handler: () => '' }),
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^inputSchema of tool "dated" \(a zod schema\) could not be converted to JSON Schema: /);
  });

  test('toJsonSchema must be a function', () => {
    expect(() => new Registry({ toJsonSchema: 'zod' as never })).toThrow(expect.objectContaining({ name: 'ConfigError', option: 'toJsonSchema' }));
  });
});

test('the official SDK client lists and calls Standard Schema tools', async () => {
  const registry = new Registry()
    .registerTool({ name: 'z', inputSchema: z.object({ a: z.number() }), outputSchema: z.object({ b: z.number() }), handler: ({ a }) => ({ b: a + 1 }) })
    .registerTool({ name: 'v', inputSchema: toStandardJsonSchema(v.object({ s: v.string() })), handler: ({ s }) => s })
    .registerTool({ name: 'a', inputSchema: type({ n: 'number' }), handler: ({ n }) => String(n) });
  const client = new Client({ name: 'sdk', version: '1' });
  await client.connect(new MemoryClientTransport(createServer({ registry })));
  try {
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.inputSchema.type])).toEqual([['z', 'object'], ['v', 'object'], ['a', 'object']]);
    expect(await client.callTool({ name: 'z', arguments: { a: 1 } })).toMatchObject({ structuredContent: { b: 2 } });
    expect(await client.callTool({ name: 'v', arguments: { s: 'hi' } })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
    expect(await client.callTool({ name: 'a', arguments: { n: 'x' } })).toMatchObject({ isError: true });
  } finally {
    await client.close();
  }
});

function captureError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

// A ToolDef (the untyped form) still takes a Standard Schema.
export const untyped: ToolDef = { name: 'u', inputSchema: z.object({}), handler: () => '' };
