/**
 * The typed tool API, proven by the compiler: one `tsc` run over
 * test/types/fixtures/ (left out of `npm run typecheck`, since half of it must
 * fail). typed-tools.pass.ts must compile with no error, its inferred types
 * checked exactly; in typed-tools.fail.ts every case marked
 * `// expect-error: TSnnnn` must fail with that code, and nothing else may.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runTsc, type TscRun } from '../helpers/tsc.js';

const FIXTURES = 'test/types/fixtures';
const FAIL = `${FIXTURES}/typed-tools.fail.ts`;
const PASS = `${FIXTURES}/typed-tools.pass.ts`;

interface Expectation {
  readonly code: string;
  readonly why: string;
  /** The lines of the case the marker heads: up to the next blank line. */
  readonly from: number;
  readonly to: number;
}

const MARKER = /^\/\/ expect-error: (TS\d+) \((.+)\)$/;

function expectations(path: string): Expectation[] {
  const lines = readFileSync(`${REPO_ROOT}/${path}`, 'utf8').split('\n');
  const found: Expectation[] = [];
  lines.forEach((line, i) => {
    const match = MARKER.exec(line.trim());
    if (match === null) return;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== '') end++;
    found.push({ code: match[1]!, why: match[2]!, from: i + 2, to: end });
  });
  return found;
}

let run: TscRun;
beforeAll(async () => {
  run = await runTsc(`${FIXTURES}/tsconfig.json`);
}, 120_000);

test('the pass fixture compiles with no error', () => {
  expect(run.diagnostics.filter((d) => d.file === PASS)).toEqual([]);
  // The same run did report the fail fixture's errors, so an empty list above is not a silent tsc.
  expect(run.diagnostics.some((d) => d.file === FAIL)).toBe(true);
});

describe('the fail fixture', () => {
  const cases = expectations(FAIL);

  test('has its cases, each headed by a marker', () => {
    expect(cases.length).toBeGreaterThanOrEqual(14);
    const blocks = readFileSync(`${REPO_ROOT}/${FAIL}`, 'utf8').split(/\n\s*\n/).filter((b) => b.trim() !== '');
    const first = blocks.findIndex((b) => MARKER.test(b.trim().split('\n')[0]!));
    for (const block of blocks.slice(first)) expect(block.trim().split('\n')[0]).toMatch(MARKER);
  });

  test.each(cases.map((c) => [c.why, c] as const))('does not compile: %s', (_why, expected) => {
    const here = run.diagnostics.filter((d) => d.file === FAIL && d.line >= expected.from && d.line <= expected.to);
    expect(here.map((d) => d.code)).toContain(expected.code);
  });

  test('fails nowhere else (no stray error hides behind a marker-less line)', () => {
    const stray = run.diagnostics.filter(
      (d) => d.file !== FAIL || !cases.some((c) => d.line >= c.from && d.line <= c.to && d.code === c.code),
    );
    expect(stray).toEqual([]);
    expect(run.exitCode).not.toBe(0);
  });
});
