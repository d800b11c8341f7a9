/**
 * scripts/conformance-verdict.mjs on made-up runs: the three Skills
 * scenarios pass only when they really ran. A summary line of ✓ whose
 * checks were SKIPPED (a server that does not declare the extension) fails
 * the run, as does a 0.2-all run without them; real successes pass.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/tsc.js';

const SKILLS = ['sep-2640-skills-enumeration', 'sep-2640-skills-directory', 'sep-2640-skills-manifest'];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxmcp-verdict-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function verdict(scenarios: readonly string[], status: 'SUCCESS' | 'SKIPPED') {
  const results = join(dir, 'results');
  const summary = ['=== SUMMARY ===', ...scenarios.map((s) => `✓ ${s}: ${status === 'SUCCESS' ? 3 : 0} passed, 0 failed`), ''].join('\n');
  for (const scenario of scenarios) {
    const folder = join(results, `server-${scenario}-2026-12-04T18-00-00-000Z`);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'checks.json'), JSON.stringify([{ id: `${scenario}-check`, status }]));
  }
  writeFileSync(join(dir, 'out.txt'), summary);
  writeFileSync(join(dir, 'expected.txt'), '');
  return spawnSync(process.execPath, [join(REPO_ROOT, 'scripts/conformance-verdict.mjs'), '0.2-all', join(dir, 'out.txt'), results, join(dir, 'expected.txt')], {
    encoding: 'utf8',
  });
}

test('the Skills scenarios with every check a success: the run passes', () => {
  const run = verdict([...SKILLS, 'ping'], 'SUCCESS');
  expect(run.stdout).toContain('0 surprises');
  expect(run.status).toBe(0);
});

test('the Skills scenarios skipped: the run fails naming each', () => {
  const run = verdict(SKILLS, 'SKIPPED');
  expect(run.status).toBe(1);
  for (const scenario of SKILLS) expect(run.stdout).toContain(`SKIPPED: ${scenario} must pass, not be skipped`);
});

test('a 0.2-all run without them fails', () => {
  const run = verdict(['ping'], 'SUCCESS');
  expect(run.status).toBe(1);
  expect(run.stdout).toContain('MISSING: sep-2640-skills-enumeration must run in 0.2-all');
});
