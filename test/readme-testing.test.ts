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
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { compileCodeBlocks, docCodeBlocks } from './helpers/readme-blocks.js';
import { REPO_ROOT, runTsc } from './helpers/tsc.js';

const run = promisify(execFile);
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
  // Inside the package (so `rxmcp` resolves to it), git-ignored like compileCodeBlocks' folder.
  const dir = join(REPO_ROOT, '.readme-blocks', 'testing-run');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.slice(0, 2).map((block, i) => {
    writeFileSync(join(dir, `block-${i + 1}.test.ts`), `${block.code}\nexport {};\n`);
    return `block-${i + 1}.test.ts`;
  });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { rootDir: '.', outDir: 'out', declaration: false }, include: files }));
  const compiled = await runTsc(join('.readme-blocks', 'testing-run', 'tsconfig.json'));
  expect(compiled.diagnostics).toEqual([]);
  const outcome = await run(process.execPath, ['--test', '--test-reporter=tap', ...files.map((f) => join(dir, 'out', f.replace(/\.ts$/, '.js')))], {
    cwd: REPO_ROOT,
    timeout: 60_000,
    env: { ...process.env, RXMCP_LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout }) => stdout,
    (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
  );
  // One async-tool test, and the approval at 999 and at 1000 ms in each era.
  expect(outcome).toMatch(/^# pass 5$/m);
  expect(outcome).toMatch(/^# fail 0$/m);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);
