/**
 * docs/tools-and-handlers.md's "Typed tools" section compiles: every ```ts block under it is
 * type-checked against the built package types (`import ... from 'rxmcp'`),
 * and its `@ts-expect-error` lines must really be errors (an unused one fails).
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';

const blocks = docCodeBlocks('docs/tools-and-handlers.md', 'Typed tools');

test('the section has its examples (zod, valibot and arktype, JSON Schema, refusals, defineTool)', () => {
  expect(blocks.length).toBe(5);
  const all = blocks.map((b) => b.code).join('\n');
  for (const marker of ["from 'zod'", "from 'valibot'", "from 'arktype'", 'as const', '@ts-expect-error', 'defineTool']) expect(all).toContain(marker);
});

test('every block compiles against the built library types', async () => {
  expect(await compileCodeBlocks('typed-tools', blocks)).toEqual([]);
}, 120_000);
