/**
 * docs/scale-out.md's "Legacy sessions across nodes" example compiles against the
 * built package types (rxmcp, rxmcp/transports, rxmcp/redis).
 */
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from '../helpers/readme-blocks.js';

const blocks = docCodeBlocks('docs/scale-out.md', 'Legacy sessions across nodes');

test('the section has its example, and it compiles', async () => {
  expect(blocks.length).toBe(1);
  expect(blocks[0]!.code).toContain('cluster.advertise(');
  expect(await compileCodeBlocks('legacy-cluster', blocks)).toEqual([]);
}, 120_000);
