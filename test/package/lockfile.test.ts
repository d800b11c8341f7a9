/**
 * Issue 21.6: `npm install` on a fresh clone leaves package-lock.json as it
 * is, and warns about no engine on the Node 20 the README promises. npm
 * rewrites the lock's root entry when it differs from package.json (it once
 * lacked the `redis` peer), and warns EBADENGINE for any locked package whose
 * `engines.node` excludes the running Node (`cookie@2`, under fastify's
 * `light-my-request`, wanted Node 22: package.json now overrides
 * light-my-request to 6.6.0, which uses cookie 1). Both are read from the
 * lock itself: no network, no install.
 *
 * One named exception: puppeteer-core 25.16.0 (pinned for the MCP Apps
 * browser test, test/apps/notes-board-browser.test.ts) and its
 * @puppeteer/browsers declare Node >=22.12, though they run on Node 20 (that
 * test passes on it). They are dev-only, so a clone on Node 20 gets an
 * EBADENGINE warning for these two and nothing else; the package's users
 * never install them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { satisfies } from '../helpers/node-range.js';
import { REPO_ROOT } from '../helpers/tsc.js';

interface Locked {
  readonly version?: string;
  readonly dev?: boolean;
  readonly optional?: boolean;
  readonly engines?: { readonly node?: string };
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly [field: string]: unknown;
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, Locked> };

/** The oldest Node 20 a clone is said to work on (README, Quick start), and the oldest the package runs on (engines). */
const CLONE_NODE = '20.19.0';
const PACKAGE_NODE = (pkg.engines as { node: string }).node.replace(/^>=\s*/, '');

/** Installed here: a platform binary for another os or cpu is skipped by npm, engines and all. */
function installedOn(entry: Locked, platform: string, arch: string): boolean {
  // npm's rule: a `!value` excludes it; any plain entry makes the list the only ones allowed.
  const allows = (list: readonly string[] | undefined, value: string) => {
    if (list === undefined || list.includes(`!${value}`)) return list === undefined;
    const plain = list.filter((item) => !item.startsWith('!'));
    return plain.length === 0 || plain.includes(value);
  };
  return allows(entry.os, platform) && allows(entry.cpu, arch);
}

/** Dev-only packages allowed to declare a newer Node, by lock path: see the header. */
const NEWER_NODE_DEV_TOOLS = new Set(['node_modules/puppeteer-core', 'node_modules/@puppeteer/browsers']);

/** Whether an entry is one of the named dev-only exceptions (and still dev-only in the lock). */
const excepted = ([path, entry]: [string, Locked]) => NEWER_NODE_DEV_TOOLS.has(path) && entry.dev === true;

describe('package-lock.json', () => {
  test('its root entry is what npm install would write from package.json, so it is left as it is', () => {
    const root = lock.packages['']!;
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies', 'peerDependenciesMeta', 'optionalDependencies', 'engines'] as const) {
      expect(root[field], field).toStrictEqual(pkg[field]);
    }
    expect([root.name, root.version]).toStrictEqual([pkg.name, pkg.version]);
  });

  test(`no locked package installed on linux x64 excludes Node ${CLONE_NODE}, the oldest a clone needs (no EBADENGINE)`, () => {
    const excluding = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && installedOn(entry, 'linux', 'x64') && !excepted([path, entry]))
      .filter(([, entry]) => entry.engines?.node !== undefined && !satisfies(CLONE_NODE, entry.engines.node))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines!.node}`);
    expect(excluding).toStrictEqual([]);
  });

  test(`nor does the running Node (${process.version}) get an engine warning`, () => {
    const excluding = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && installedOn(entry, process.platform, process.arch) && !excepted([path, entry]))
      .filter(([, entry]) => entry.engines?.node !== undefined && !satisfies(process.version, entry.engines.node))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines!.node}`);
    expect(excluding).toStrictEqual([]);
  });

  test(`the published dependencies run on Node ${PACKAGE_NODE}, the package's own engines`, () => {
    const runtime = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev !== true && entry.optional !== true);
    expect(runtime.length).toBeGreaterThan(5);
    const excluding = runtime
      .filter(([, entry]) => entry.engines?.node !== undefined && !satisfies(PACKAGE_NODE, entry.engines.node))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${entry.engines!.node}`);
    expect(excluding).toStrictEqual([]);
  });
});

test('the range reader reads the forms npm packages use, and refuses what it cannot read', () => {
  expect(satisfies('20.19.0', '^20.19.0 || >=22.12.0')).toBe(true);
  expect(satisfies('20.18.3', '^20.19.0 || >=22.12.0')).toBe(false);
  expect(satisfies('20.20.2', '>=22')).toBe(false);
  expect(satisfies('20.3.0', '>= 10.x')).toBe(true);
  expect(satisfies('v20.3.0', '^10 || ^12 || ^13.7 || ^14 || >=15.0.1')).toBe(true);
  expect(satisfies('20.3.0', '*')).toBe(true);
  expect(() => satisfies('20.3.0', '>=latest')).toThrow();
});
