/**
 * docs/tasks.md's "Testing tasks on the virtual clock" block compiles against
 * the built package (importing `rxmcp` and `rxmcp/testing` as a user does)
 * and passes under `node --test`: the guide's promise (working at 4,999 ms,
 * completed at 5,000, forgotten at its TTL) is what happens.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { docCodeBlocks } from '../helpers/readme-blocks.js';
import { REPO_ROOT, runTsc } from '../helpers/tsc.js';

const run = promisify(execFile);

test("the guide's task test compiles and passes under node --test", async () => {
  const blocks = docCodeBlocks('docs/tasks.md', 'Testing tasks on the virtual clock');
  expect(blocks).toHaveLength(1);
  // Inside the package (so `rxmcp` resolves to it), git-ignored like the other README block runs.
  const dir = join(REPO_ROOT, '.readme-blocks', 'tasks-run');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'guide.test.ts'), `${blocks[0]!.code}\nexport {};\n`);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { rootDir: '.', outDir: 'out', declaration: false }, include: ['guide.test.ts'] }));
  const compiled = await runTsc(join('.readme-blocks', 'tasks-run', 'tsconfig.json'));
  expect(compiled.diagnostics).toEqual([]);
  const outcome = await run(process.execPath, ['--test', '--test-reporter=tap', join(dir, 'out', 'guide.test.js')], {
    cwd: REPO_ROOT,
    timeout: 60_000,
    env: { ...process.env, RXMCP_LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout }) => stdout,
    (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
  );
  expect(outcome).toMatch(/^# pass 1$/m);
  expect(outcome).toMatch(/^# fail 0$/m);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);
