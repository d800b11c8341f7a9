/**
 * Issue 21.6: the README's "The package" section is true. Its sizes are
 * checked against `npm pack --dry-run` (within 10%: a README edit should not
 * fail it, a new directory in the tarball should), its entry points against
 * package.json `exports`, its contents against `files`, its dependencies and
 * optional peers against `dependencies` and `peerDependencies`.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { INSPECTOR } from '../../examples/demo/inspector.js';
import { REPO_ROOT } from '../helpers/tsc.js';

const run = promisify(execFile);

interface DryPack {
  readonly size: number;
  readonly unpackedSize: number;
  readonly entryCount: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  files: string[];
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const section = readme.slice(readme.indexOf('## The package\n'), readme.indexOf('\n## ', readme.indexOf('## The package\n') + 3));

/** The bullet that starts `- **<title>.**`, joined into one line. */
function bullet(title: string): string {
  const start = section.indexOf(`- **${title}.**`);
  expect(start, `no "${title}" bullet`).toBeGreaterThanOrEqual(0);
  const end = section.indexOf('\n- ', start + 1);
  return section.slice(start, end === -1 ? undefined : end).replace(/\s+/g, ' ');
}

function codeSpans(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** The number the README states after `label` (kB or MB, as written), in bytes. */
function stated(pattern: RegExp): number {
  const match = pattern.exec(bullet('Contents'));
  expect(match, String(pattern)).not.toBeNull();
  const value = Number(match![1]);
  return match![2] === 'MB' ? value * 1_000_000 : match![2] === 'kB' ? value * 1000 : value;
}

function near(actual: number, claimed: number, tolerance = 0.1): void {
  expect(Math.abs(actual - claimed) / actual, `claimed ${claimed}, actual ${actual}`).toBeLessThanOrEqual(tolerance);
}

let packed: DryPack;
beforeAll(async () => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'lib', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO_ROOT, timeout: 30_000 });
  packed = (JSON.parse(stdout) as DryPack[])[0]!;
}, 60_000);

describe('"The package" in the README', () => {
  test('its sizes and file count are those of the tarball', () => {
    near(packed.unpackedSize, stated(/About (\d+(?:\.\d+)?) (MB|kB) unpacked/));
    near(packed.size, stated(/\((\d+(?:\.\d+)?) (MB|kB) packed\)/));
    near(packed.entryCount, stated(/in about (\d+)() files/));
    const bytes = (match: (path: string) => boolean) => packed.files.filter((f) => match(f.path)).reduce((sum, f) => sum + f.size, 0);
    const types = (path: string) => path.endsWith('.d.ts') || path.endsWith('.d.cts');
    near(bytes((path) => /\.c?js$/.test(path)), stated(/JavaScript about (\d+) (kB)/), 0.15);
    near(bytes(types), stated(/`\.d\.ts` about (\d+) (kB)/), 0.15);
    near(bytes((path) => path === 'README.md'), stated(/this README about (\d+) (kB)/), 0.15);
  });

  test('its contents name every entry of package.json "files"', () => {
    const named = codeSpans(bullet('Contents'));
    expect(pkg.files.filter((entry) => !named.has(entry))).toStrictEqual([]);
  });

  test('its entry points are exactly package.json "exports"', () => {
    const entries = Object.keys(pkg.exports)
      .filter((key) => key !== './package.json')
      .map((key) => (key === '.' ? 'rxmcp' : `rxmcp/${key.slice(2)}`));
    const named = [...codeSpans(bullet('Entry points'))].filter((span) => /^rxmcp(\/[\w-]+)?$/.test(span));
    expect(named.sort()).toStrictEqual(entries.sort());
  });

  test('its dependencies name every dependency and every optional peer', () => {
    const named = codeSpans(bullet('Dependencies'));
    expect(Object.keys(pkg.dependencies).filter((name) => !named.has(name))).toStrictEqual([]);
    expect(Object.keys(pkg.peerDependencies).filter((name) => !named.has(name))).toStrictEqual([]);
  });
});

test('the Inspector the demo prints and the README shows is pinned to 0.15.0, the last release without a Node 22 engines bound', () => {
  expect(INSPECTOR).toBe('@modelcontextprotocol/inspector@0.15.0');
  const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 3));
  const commands = [...quickStart.matchAll(/npx (@modelcontextprotocol\/inspector\S*)/g)].map((m) => m[1]);
  expect(commands).toStrictEqual([INSPECTOR]);
});
