/**
 * docs/scale-out.md's "Run a cluster" code compiles: the official clients pointed
 * at the example's proxy (SDK v2 pinned modern, SDK v1 legacy), against the
 * versions pinned in devDependencies.
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';

test('the client block of "Run a cluster" compiles against the pinned SDKs', async () => {
  const blocks = docCodeBlocks('docs/scale-out.md', 'Run a cluster');
  expect(blocks).toHaveLength(1);
  expect(blocks[0]!.code).toContain("from '@modelcontextprotocol/client'");
  expect(blocks[0]!.code).toContain("from '@modelcontextprotocol/sdk/client/index.js'");
  expect(await compileCodeBlocks('run-a-cluster', blocks)).toEqual([]);
}, 120_000);
