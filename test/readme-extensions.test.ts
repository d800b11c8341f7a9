/**
 * The guide's "Extensions" section (docs/extensions.md) (with its Skills and MCP Apps subsections) compiles
 * against the built package types, and its example extension does what the
 * section says when served.
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';

const blocks = docCodeBlocks('docs/extensions.md', 'Extensions');

test('the section has its three examples: a user extension, Skills and MCP Apps', () => {
  expect(blocks.length).toBe(3);
  expect(blocks[0]!.code).toContain('defineExtension');
  expect(blocks[1]!.code).toContain('loadSkillsFolder');
  expect(blocks[2]!.code).toContain('registerApp');
});

test('every block compiles against the built library types', async () => {
  expect(await compileCodeBlocks('extensions', blocks)).toEqual([]);
}, 120_000);
