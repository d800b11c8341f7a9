/**
 * docs/scale-out.md's "Bounds: which hold cluster-wide, which per node" example
 * compiles against the built package (rxmcp and rxmcp/redis as a user
 * imports them). Build first (`npm test` does).
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from '../helpers/readme-blocks.js';

test('the cluster-wide bounds example compiles', async () => {
  const blocks = docCodeBlocks('docs/scale-out.md', 'Bounds: which hold cluster-wide, which per node');
  expect(blocks).toHaveLength(1);
  expect(blocks[0]!.code).toContain('permits: {');
  expect(await compileCodeBlocks('cluster-bounds', blocks)).toEqual([]);
}, 120_000);
