/**
 * The README's "Bounds: which hold cluster-wide, which per node" example
 * compiles against the built package (rxmcp and rxmcp/redis as a user
 * imports them). Build first (`npm test` does).
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { compileCodeBlocks, readmeCodeBlocks } from '../helpers/readme-blocks.js';
import { REPO_ROOT } from '../helpers/tsc.js';
import { join } from 'node:path';

test('the cluster-wide bounds example compiles', async () => {
  const blocks = readmeCodeBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), 'Bounds: which hold cluster-wide, which per node');
  expect(blocks).toHaveLength(1);
  expect(blocks[0]!.code).toContain('permits: {');
  expect(await compileCodeBlocks('cluster-bounds', blocks)).toEqual([]);
}, 120_000);
