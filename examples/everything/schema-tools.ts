/**
 * Tools whose point is their input schema: the JSON Schema 2020-12 one
 * (SEP-1613 keywords, and SEP-2106's `$anchor` in `$defs`, `allOf` holding
 * an `anyOf`, `if`/`then`/`else`), passed through verbatim, and the SEP-2243
 * one whose string property is mirrored into the `Mcp-Param-Region` header
 * (`x-mcp-header`), which the modern HTTP transport validates.
 */
import type { Registry } from '../../lib/index.js';

export const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } },
    },
  },
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
};

export const X_MCP_HEADER_INPUT = {
  type: 'object',
  properties: {
    region: { type: 'string', description: 'Mirrored into the Mcp-Param-Region header', 'x-mcp-header': 'Region' },
  },
  required: ['region'],
};

export function registerSchemaTools(registry: Registry): void {
  registry.registerTool({
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: JSON_SCHEMA_2020_12_INPUT,
    handler: (args) => `Received: ${JSON.stringify(args)}`,
  });

  registry.registerTool({
    name: 'test_x_mcp_header',
    description: 'Echoes its region argument, which travels in the Mcp-Param-Region header too (SEP-2243).',
    inputSchema: X_MCP_HEADER_INPUT,
    handler: (args) => `Region: ${String((args as Record<string, unknown>).region)}`,
  });
}
