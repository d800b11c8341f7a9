/**
 * rxmcp/testing runs under any test framework: the built entry imports none
 * (vitest, jest, mocha, node:test...), and a user's test written for
 * node:test, importing the built package entries by name, passes when node's
 * own runner runs it (a child process, bounded by a timeout).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/tsc.js';

const run = promisify(execFile);
const BUILT = join(REPO_ROOT, 'dist', 'testing');
const FRAMEWORKS = /from\s+['"](?:vitest|@vitest\/[^'"]*|jest|@jest\/[^'"]*|mocha|chai|node:test|ava|tap|uvu)['"]/;

test('the built testing entry imports no test framework', () => {
  expect(existsSync(join(BUILT, 'index.js')), 'dist/testing is missing: run `npm run build` first (npm test does)').toBe(true);
  const files = readdirSync(BUILT).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'));
  expect(files.length).toBeGreaterThan(5);
  expect(files.filter((f) => FRAMEWORKS.test(readFileSync(join(BUILT, f), 'utf8')))).toEqual([]);
});

test('a node:test file using rxmcp/testing passes under `node --test` (both eras: an async tool with a timeout, an approval at 999 and 1000 ms)', async () => {
  const fixture = join(REPO_ROOT, 'test', 'testing', 'fixtures', 'approval.node-test.mjs');
  const outcome = await run(process.execPath, ['--test', '--test-reporter=tap', fixture], {
    cwd: REPO_ROOT,
    timeout: 60_000,
    env: { ...process.env, RXMCP_LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: `${error.stdout}\n${error.stderr}` }),
  );
  expect(outcome.stdout).toMatch(/^# pass 6$/m);
  expect(outcome.stdout).toMatch(/^# fail 0$/m);
  expect(outcome.code).toBe(0);
}, 90_000);
