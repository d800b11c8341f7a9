/**
 * The floor plan, enforced (DESIGN "Layout"): dependencies point down only,
 * `testing/ -> transports/ -> streams/ -> lib/` and `cluster/ -> lib/`; the
 * package's public barrel (lib/index.ts) is the one file that may import
 * upward, though never into testing/ (the test kit is its own entry,
 * rxmcp/testing, and nothing a server runs may depend on it); no
 * circle of any kind, type-only imports included; the core (lib/,
 * streams/) touches no wire: no transport, `node:http`, `ws` or `process`;
 * and no re-export inside the package: only its entry points (package.json
 * `exports`) re-export, so every name is imported from where it is made.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { circles, importGraph, ROOT } from './import-graph.js';

const FLOOR: Record<string, number> = { lib: 0, streams: 1, transports: 2, testing: 3 };
/** Files allowed to import any floor: the package's entry points. */
const BARRELS = new Set(['lib/index.ts']);

function floorOf(file: string): string {
  return file.split('/')[0]!;
}

/** Whether `from` may import `to` under the floor plan. */
function allowed(from: string, to: string): boolean {
  const a = floorOf(from);
  const b = floorOf(to);
  if (b === 'testing') return a === 'testing';
  if (BARRELS.has(from)) return true;
  if (a === b) return true;
  if (a === 'cluster') return b === 'lib';
  if (b === 'cluster') return false;
  return FLOOR[b]! < FLOOR[a]!;
}

const graph = importGraph();

describe('the floor plan', () => {
  test('reads every floor', () => {
    for (const folder of ['lib/', 'streams/', 'transports/', 'testing/', 'cluster/']) {
      expect([...graph.keys()].some((file) => file.startsWith(folder))).toBe(true);
    }
    // The reader follows imports: a file the graph knows imports something.
    expect(graph.get('streams/mcp-server.ts')?.length ?? 0).toBeGreaterThan(5);
  });

  test('dependencies point down only', () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      for (const to of targets) if (!allowed(from, to)) upward.push(`${from} -> ${to}`);
    }
    expect(upward, 'an import against the floor plan (testing -> transports -> streams -> lib, cluster -> lib)').toEqual([]);
  });

  test('no circle of imports, type-only ones included', () => {
    expect(circles(graph).map((component) => component.join(' <-> '))).toEqual([]);
  });

  test('the core imports no transport, node:http, ws or process', () => {
    const offenders: string[] = [];
    for (const file of graph.keys()) {
      if (floorOf(file) !== 'lib' && floorOf(file) !== 'streams') continue;
      if (BARRELS.has(file)) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/from\s+['"](?:node:)?(?:http|https|process)['"]|from\s+['"]ws['"]|\bprocess\.(?:env|stdout|stdin|stderr|exit|on)\b/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});

/** The package's entry points, from package.json `exports`: the only files that re-export another module's names. */
function entryPoints(): Set<string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { import?: { types?: string } } | string> };
  const entries = new Set<string>();
  // The code is bundled (dist/bundle); the typings name the module each entry point is made from.
  for (const target of Object.values(pkg.exports)) {
    const file = typeof target === 'string' ? undefined : target.import?.types;
    if (file?.startsWith('./dist/') === true) entries.add(file.slice('./dist/'.length).replace(/\.d\.ts$/, '.ts'));
  }
  return entries;
}

describe('names', () => {
  test('no re-export inside the package: only its entry points re-export (a name is imported from where it is made)', () => {
    const entries = entryPoints();
    expect(entries.has('lib/index.ts') && entries.has('transports/index.ts') && entries.has('testing/index.ts')).toBe(true);
    const reexports: string[] = [];
    for (const file of graph.keys()) {
      if (entries.has(file)) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      if (/^export\s+(?:type\s+)?(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?)\s+from\s+['"]/m.test(text)) reexports.push(file);
    }
    expect(reexports).toEqual([]);
  });
});

describe('the checker itself', () => {
  test('finds an upward import and a circle in a made-up graph', () => {
    expect(allowed('lib/a.ts', 'streams/b.ts')).toBe(false);
    expect(allowed('streams/a.ts', 'transports/b.ts')).toBe(false);
    expect(allowed('cluster/redis/a.ts', 'streams/b.ts')).toBe(false);
    expect(allowed('transports/a.ts', 'lib/b.ts')).toBe(true);
    expect(allowed('lib/index.ts', 'streams/b.ts')).toBe(true);
    expect(allowed('testing/a.ts', 'transports/b.ts')).toBe(true);
    expect(allowed('testing/a.ts', 'lib/b.ts')).toBe(true);
    expect(allowed('transports/a.ts', 'testing/b.ts')).toBe(false);
    expect(allowed('cluster/redis/a.ts', 'testing/b.ts')).toBe(false);
    expect(allowed('lib/index.ts', 'testing/b.ts')).toBe(false);
    const made = new Map([
      ['lib/a.ts', ['lib/b.ts']],
      ['lib/b.ts', ['lib/c.ts']],
      ['lib/c.ts', ['lib/a.ts']],
      ['lib/d.ts', ['lib/a.ts']],
    ]);
    expect(circles(made)).toEqual([['lib/a.ts', 'lib/b.ts', 'lib/c.ts']]);
  });
});
