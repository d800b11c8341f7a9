/**
 * The README's "Run a cluster" code compiles: the official clients pointed
 * at the example's proxy (SDK v2 pinned modern, SDK v1 legacy), against the
 * versions pinned in devDependencies.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { compileCodeBlocks, readmeCodeBlocks } from './helpers/readme-blocks.js';
import { REPO_ROOT } from './helpers/tsc.js';

const readme = readFileSync(`${REPO_ROOT}/README.md`, 'utf8');

test('the client block of "Run a cluster" compiles against the pinned SDKs', async () => {
  const blocks = readmeCodeBlocks(readme, 'Run a cluster');
  expect(blocks).toHaveLength(1);
  expect(blocks[0]!.code).toContain("from '@modelcontextprotocol/client'");
  expect(blocks[0]!.code).toContain("from '@modelcontextprotocol/sdk/client/index.js'");
  expect(await compileCodeBlocks('run-a-cluster', blocks)).toEqual([]);
}, 120_000);
