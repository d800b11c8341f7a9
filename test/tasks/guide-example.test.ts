/**
 * docs/tasks.md's "Testing tasks on the virtual clock" block compiles against
 * the built package (importing `rxmcp` and `rxmcp/testing` as a user does)
 * and passes under `node --test`: the guide's promise (working at 4,999 ms,
 * completed at 5,000, forgotten at its TTL) is what happens.
 */
import { expect, test } from 'vitest';
import { runNodeTestBlocks } from '../helpers/node-test-blocks.js';
import { docCodeBlocks } from '../helpers/readme-blocks.js';

test("the guide's task test compiles and passes under node --test", async () => {
  const blocks = docCodeBlocks('docs/tasks.md', 'Testing tasks on the virtual clock');
  expect(blocks).toHaveLength(1);
  const { diagnostics, tap } = await runNodeTestBlocks('tasks-run', blocks);
  expect(diagnostics).toEqual([]);
  expect(tap).toMatch(/^# pass 1$/m);
  expect(tap).toMatch(/^# fail 0$/m);
}, 120_000);
