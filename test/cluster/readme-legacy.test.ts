/**
 * The README's "Legacy sessions across nodes" example compiles against the
 * built package types (rxmcp, rxmcp/transports, rxmcp/redis).
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { compileCodeBlocks, readmeCodeBlocks } from '../helpers/readme-blocks.js';
import { REPO_ROOT } from '../helpers/tsc.js';

const blocks = readmeCodeBlocks(readFileSync(`${REPO_ROOT}/README.md`, 'utf8'), 'Legacy sessions across nodes');

test('the section has its example, and it compiles', async () => {
  expect(blocks.length).toBe(1);
  expect(blocks[0]!.code).toContain('cluster.advertise(');
  expect(await compileCodeBlocks('legacy-cluster', blocks)).toEqual([]);
}, 120_000);
