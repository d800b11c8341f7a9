/**
 * docs/testing.md's "Testing your server" section compiles, and its tests pass:
 * every ```ts block under it (the async tool with a timeout, the approval at
 * 999 and 1000 ms in both eras, a handler's questions with listen and a
 * normalized snapshot, and the marble test) is type-checked against the
 * built package types, importing `rxmcp` and `rxmcp/testing` as a user does;
 * then the two node:test blocks are compiled to JavaScript and run by node's
 * own test runner, so what the README promises (999 passes, 1000 is the
 * timed-out deny) is what happens.
 */
import { expect, test } from 'vitest';
import { runNodeTestBlocks } from './helpers/node-test-blocks.js';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';
const blocks = docCodeBlocks('docs/testing.md', 'Testing your server');

test('the section has its examples: an async tool, approvals in both eras, inputs and listen, a marble test', () => {
  expect(blocks.length).toBe(4);
  const all = blocks.map((b) => b.code).join('\n');
  for (const marker of ["from 'rxmcp/testing'", 'ctx.sleep(', "'legacy'", "'modern'", '999', 'expectDenied(result, ', 'nextInput()', 'listen(', 'normalizeIds', 'TestScheduler']) {
    expect(all).toContain(marker);
  }
});

test('every block compiles against the built library types', async () => {
  expect(await compileCodeBlocks('testing', blocks)).toEqual([]);
}, 120_000);

test('the async-tool and approval blocks pass under `node --test`', async () => {
  const { diagnostics, tap } = await runNodeTestBlocks('testing-run', blocks.slice(0, 2));
  expect(diagnostics).toEqual([]);
  // One async-tool test, and the approval at 999 and at 1000 ms in each era.
  expect(tap).toMatch(/^# pass 5$/m);
  expect(tap).toMatch(/^# fail 0$/m);
}, 120_000);
