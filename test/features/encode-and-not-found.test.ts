import { describe, expect, test } from 'vitest';
import { PassThrough } from 'node:stream';
import { createServer, encodeMessage, Registry, ResourceNotFoundError } from '../../lib/index.js';
import { serveStdio } from '../../transports/stdio.js';

describe('encodeMessage', () => {
  test('a reply that cannot be serialised becomes an internal error for the same id', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const text = encodeMessage({ jsonrpc: '2.0', id: 7, result: { structuredContent: { n: 1n } } });
    expect(JSON.parse(text!)).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603 } });
    expect(JSON.parse(encodeMessage({ jsonrpc: '2.0', id: 'x', result: cyclic })!)).toMatchObject({ id: 'x', error: { code: -32603 } });
  });

  test('a notification that cannot be serialised is dropped, anything else is plain JSON', () => {
    expect(encodeMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 1n } })).toBeNull();
    expect(encodeMessage({ jsonrpc: '2.0', id: 1, result: {} })).toBe('{"jsonrpc":"2.0","id":1,"result":{}}');
  });

  test('over stdio the request is still answered', async () => {
    const registry = new Registry().registerTool({
      name: 'big',
      handler: () => ({ content: [{ type: 'text', text: 'x' }], structuredContent: { n: 10n } }),
    });
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(createServer({ registry }), { input, output });
    const lines: string[] = [];
    output.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
    // stdio answers nothing but ping before initialize.
    input.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n');
    input.write('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big"}}\n');
    input.end();
    await handle.closed;
    expect(lines.map((l) => JSON.parse(l)).filter((m) => m.id === 3)).toEqual([
      { jsonrpc: '2.0', id: 3, error: { code: -32603, message: expect.stringMatching(/^Internal error: reply could not be serialised/) } },
    ]);
  });
});

test('a template reader that throws ResourceNotFoundError answers like an unknown URI', async () => {
  const registry = new Registry().registerResourceTemplate({
    uriTemplate: 'test://notes/{id}',
    name: 'note',
    read: (_uri, vars) => {
      if (vars.id !== '1') throw new ResourceNotFoundError(`no note ${vars.id}`);
      return 'one';
    },
  });
  const server = createServer({ registry });
  expect(await server.handleMessage({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'test://notes/9' } })).toEqual({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32602, message: 'Resource not found: test://notes/9', data: { uri: 'test://notes/9' } },
  });
  expect(await server.handleMessage({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'test://notes/1' } })).toEqual({
    jsonrpc: '2.0',
    id: 2,
    result: { contents: [{ uri: 'test://notes/1', text: 'one' }] },
  });
});
