import { describe, expect, test } from 'vitest';
import { allowAll, createServer, Registry } from '../../lib/index.js';

const call = (server: ReturnType<typeof createServer>, name: string, args: unknown) =>
  server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('inputSchema validation', () => {
  const inputSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { n: { type: 'integer', minimum: 1 }, email: { type: 'string', format: 'email' } },
    required: ['n'],
    additionalProperties: false,
    $defs: { unused: { type: 'string' } },
  };

  function server() {
    let runs = 0;
    const registry = new Registry().registerTool({ name: 'count', inputSchema, handler: (a) => (runs++, `n=${a.n}`) });
    return { server: createServer({ registry, authorizer: allowAll() }), runs: () => runs };
  }

  test('valid arguments reach the handler', async () => {
    const { server: s, runs } = server();
    expect(await call(s, 'count', { n: 2, email: 'a@b.example' })).toMatchObject({ result: { content: [{ type: 'text', text: 'n=2' }] } });
    expect(runs()).toBe(1);
  });

  test.each([
    [{}, "must have required property 'n'"],
    [{ n: 0 }, 'must be >= 1'],
    [{ n: 1.5 }, 'must be integer'],
    [{ n: 1, extra: true }, 'must NOT have additional properties'],
    [{ n: 1, email: 'nope' }, 'must match format "email"'],
  ])('%j is an isError result saying what is wrong, and the handler never runs', async (args, problem) => {
    const { server: s, runs } = server();
    const reply = (await call(s, 'count', args)) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]!.text).toContain('Invalid arguments for tool count');
    expect(reply.result.content[0]!.text).toContain(problem);
    expect(runs()).toBe(0);
  });

  test('tools/list passes the raw inputSchema through untouched', async () => {
    const { server: s } = server();
    const reply = (await s.handleMessage({ jsonrpc: '2.0', id: 1, method: 'tools/list' })) as {
      result: { tools: Array<{ inputSchema: unknown }> };
    };
    expect(reply.result.tools[0]!.inputSchema).toEqual(inputSchema);
  });

  test('draft-07 schemas are honoured', async () => {
    const registry = new Registry().registerTool({
      name: 'old',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
      handler: () => 'ok',
    });
    const s = createServer({ registry });
    expect(await call(s, 'old', { a: 'x' })).toMatchObject({ result: { content: [{ text: 'ok' }] } });
    expect(await call(s, 'old', {})).toMatchObject({ result: { isError: true } });
  });

  test('an invalid schema is refused at registration', () => {
    expect(() =>
      new Registry().registerTool({ name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 'nope' } } }, handler: () => '' }),
    ).toThrow(/tool broken has an invalid inputSchema/);
  });
});

describe('outputSchema and structuredContent', () => {
  const outputSchema = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };

  test('a plain object result becomes structuredContent plus its JSON as text', async () => {
    const registry = new Registry().registerTool({ name: 'add', outputSchema, handler: () => ({ sum: 3 }) });
    expect(await call(createServer({ registry }), 'add', {})).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: '{"sum":3}' }], structuredContent: { sum: 3 } },
    });
  });

  test('structuredContent that breaks the schema is an isError result', async () => {
    const registry = new Registry().registerTool({ name: 'add', outputSchema, handler: () => ({ sum: 'three' }) });
    const reply = (await call(createServer({ registry }), 'add', {})) as { result: { isError: boolean; content: Array<{ text: string }> } };
    expect(reply.result.isError).toBe(true);
    expect(reply.result.content[0]!.text).toMatch(/does not match its outputSchema: structuredContent\/sum must be number/);
  });

  test('a result with no structuredContent is an isError result; a handler isError result is left alone', async () => {
    const registry = new Registry()
      .registerTool({ name: 'none', outputSchema, handler: () => 'just text' })
      .registerTool({ name: 'failing', outputSchema, handler: () => ({ content: [{ type: 'text', text: 'bad' }], isError: true }) });
    const s = createServer({ registry });
    expect(await call(s, 'none', {})).toMatchObject({
      result: { isError: true, content: [{ text: 'Tool none declares an outputSchema but returned no structuredContent' }] },
    });
    expect(await call(s, 'failing', {})).toMatchObject({ result: { isError: true, content: [{ text: 'bad' }] } });
  });
});
