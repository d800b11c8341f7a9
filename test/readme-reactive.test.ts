/**
 * The README's "Embedding in a reactive app" and "Plugging a transport"
 * sections compile: every ```ts block under them is type-checked against the
 * built package types (`import ... from 'rxmcp'`), as a user's code would be.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { compileCodeBlocks, readmeCodeBlocks } from './helpers/readme-blocks.js';
import { REPO_ROOT } from './helpers/tsc.js';

const readme = readFileSync(`${REPO_ROOT}/README.md`, 'utf8');
const reactive = readmeCodeBlocks(readme, 'Embedding in a reactive app');
const transport = readmeCodeBlocks(readme, 'Plugging a transport');

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
