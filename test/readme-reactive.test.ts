/**
 * The "Embedding in a reactive app" (docs/reactive.md) and "Plugging a
 * transport" (docs/transports.md) sections compile: every ```ts block under them is type-checked against the
 * built package types (`import ... from 'rxmcp'`), as a user's code would be.
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';

const reactive = docCodeBlocks('docs/reactive.md', 'Embedding in a reactive app');
const transport = docCodeBlocks('docs/transports.md', 'Plugging a transport');

test('the sections have their examples (a binding, an observable resource, stats$ on a virtual clock, a transport)', () => {
  expect(reactive.length).toBe(3);
  const all = reactive.map((b) => b.code).join('\n');
  for (const marker of ['bindTools(', 'content$:', 'server.stats$', 'TestScheduler']) expect(all).toContain(marker);
  expect(transport.length).toBe(1);
  for (const marker of ['server.connect(', 'mintConnId', 'errors.parseError', 'cancelListens', 'encodeMessage']) expect(transport[0]!.code).toContain(marker);
});

test('every block compiles against the built library types', async () => {
  expect(await compileCodeBlocks('reactive-and-transport', [...reactive, ...transport])).toEqual([]);
}, 120_000);
