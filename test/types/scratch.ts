import { z } from 'zod';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { Registry, defineTool } from '../../lib/index.js';

const r = new Registry();
r.registerTool({
  name: 'add',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  handler: ({ a, b }) => ({ sum: a + b }),
});
r.registerTool({
  name: 'addz',
  inputSchema: z.object({ a: z.number(), b: z.number().default(1) }),
  outputSchema: z.object({ sum: z.number() }),
  handler: async ({ a, b }) => { const s: number = a + b; return { sum: s }; },
});
r.registerTool({
  name: 'addv',
  inputSchema: toStandardJsonSchema(v.object({ a: v.number(), b: v.string() })),
  handler: ({ a, b }) => { const x: number = a; const y: string = b; return `${x}${y}`; },
});
r.registerTool({
  name: 'adda',
  inputSchema: type({ a: 'number', b: 'string' }),
  outputSchema: type({ n: 'number' }),
  handler: ({ a, b }) => { const x: number = a; const y: string = b; return { n: x + y.length }; },
});
r.registerTool({
  name: 'bad',
  inputSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  // @ts-expect-error wrong result
  handler: ({ a }) => ({ sum: String(a) }),
});
r.registerTool({
  name: 'bad2',
  inputSchema: z.object({ a: z.number() }),
  // @ts-expect-error a is number
  handler: ({ a }) => a.toUpperCase(),
});
r.registerTool({
  name: 'bad3',
  outputSchema: z.object({ sum: z.number() }),
  // @ts-expect-error string
  handler: () => 'text',
});
const d = defineTool({ name: 'x', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const, handler: ({ q }) => q.length });
r.registerTools([d]);
