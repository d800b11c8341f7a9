/** x-mcp-header annotations are checked when a tool is registered (lib/tool-header-marks.ts). */
import { describe, expect, test } from 'vitest';
import { ConfigError, Registry } from '../../lib/index.js';

const register = (inputSchema: Record<string, unknown>) => () => new Registry().registerTool({ name: 't', inputSchema, handler: () => 'ok' } as never);

describe('x-mcp-header at registration', () => {
  test('valid marks: string, integer, boolean, nested through properties', () => {
    expect(register({
      type: 'object',
      properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'object', properties: { c: { type: 'integer', 'x-mcp-header': 'Deep-C' }, d: { type: 'boolean', 'x-mcp-header': 'D' } } } },
    })).not.toThrow();
  });

  test.each([
    ['a number property', { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }, /not string, integer or boolean/],
    ['an object property', { type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } }, /not string, integer or boolean/],
    ['a name with a space', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A B' } } }, /header name token/],
    ['an empty name', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }, /header name token/],
    ['a duplicate ignoring case', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Id' }, b: { type: 'string', 'x-mcp-header': 'ID' } } }, /used twice/],
    ['inside items', { type: 'object', properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }, /through "properties" only/],
    ['inside anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }, /through "properties" only/],
    ['on the root', { type: 'object', 'x-mcp-header': 'A' }, /through "properties" only/],
  ])('refused: %s', (_what, schema, message) => {
    expect(register(schema)).toThrow(ConfigError);
    expect(register(schema)).toThrow(message);
  });
});
