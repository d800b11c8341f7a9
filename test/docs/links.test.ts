/**
 * The README and the guides link where they say. A relative link names a
 * file or folder of the repository, and its anchor a heading of that file (by
 * GitHub's slugs); an anchor alone names a heading of the same file; a link to
 * this repository on GitHub (`blob/main/...`, `tree/main/...`) names a file or
 * folder that exists, and its anchor a heading. (The README ships in the
 * tarball and docs/ does not, so the README reaches the guides by repository
 * links; test/package/pack.test.ts holds its relative links to the tarball.)
 * The index, docs/README.md, links every guide, and the README links the index.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, test } from 'vitest';
import { REPO_ROOT } from '../helpers/tsc.js';

const REPOSITORY = 'https://github.com/rxmcp/rxmcp/';
const GUIDES = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
const DOC_FILES = ['README.md', ...GUIDES];

/** The markdown without its fenced blocks and inline code (neither holds links). */
function prose(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const open = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      if (open !== null && open[1]!.startsWith(fence)) fence = null;
      out.push('');
    } else if (open !== null) {
      fence = open[1]!;
      out.push('');
    } else out.push(line.replace(/`[^`\n]*`/g, '``'));
  }
  return out.join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/`/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a markdown file's headings, from their text with its inline code (a repeated heading gets -1, -2, ... as on GitHub). */
function headingAnchors(file: string): Set<string> {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const lines = text.split('\n');
  const blank = prose(text).split('\n');
  const seen = new Map<string, number>();
  const found = new Set<string>();
  lines.forEach((line, i) => {
    if (!/^#{1,6}\s/.test(blank[i]!)) return;
    const base = slug(/^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)![1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  });
  return found;
}

/** Every link target of a markdown file, with the line it is on. */
function links(file: string): Array<{ target: string; line: number }> {
  const text = prose(readFileSync(join(REPO_ROOT, file), 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => ({ target: match[1]!, line: text.slice(0, match.index).split('\n').length }));
}

/** What is wrong with one link of `file`, or null. */
function check(file: string, target: string): string | null {
  let path: string;
  let anchor: string | undefined;
  if (target.startsWith('#')) {
    path = file;
    anchor = target.slice(1);
  } else if (/^[a-z]+:/i.test(target)) {
    if (!target.startsWith(REPOSITORY)) return null; // elsewhere on the web: not checked here
    const inRepo = /^(?:blob|tree)\/main\/([^#]*)(?:#(.*))?$/.exec(target.slice(REPOSITORY.length));
    if (inRepo === null) return null; // the repository itself, its issues, a compare view
    path = inRepo[1]!.replace(/\/$/, '');
    anchor = inRepo[2];
  } else {
    const [relative, hash] = target.split('#') as [string, string | undefined];
    path = normalize(join(dirname(file), relative));
    anchor = hash;
  }
  if (!existsSync(join(REPO_ROOT, path))) return `${target}: ${path} is not in the repository`;
  if (anchor === undefined || anchor === '') return null;
  if (!path.endsWith('.md') || statSync(join(REPO_ROOT, path)).isDirectory()) return null;
  return headingAnchors(path).has(anchor) ? null : `${target}: ${path} has no heading #${anchor}`;
}

describe.each(DOC_FILES)('%s', (file) => {
  test('every link names a file that exists, and every anchor a heading of it', () => {
    const found = links(file);
    const broken = found.flatMap(({ target, line }) => {
      const problem = check(file, target);
      return problem === null ? [] : [`${file}:${line}: ${problem}`];
    });
    expect(broken).toStrictEqual([]);
  });
});

test('the index links every guide, and the README links the index and every guide', () => {
  const index = links('docs/README.md').map(({ target }) => target.replace(/#.*$/, ''));
  const readme = links('README.md').map(({ target }) => target.replace(/#.*$/, ''));
  for (const guide of GUIDES.filter((path) => path !== 'docs/README.md')) {
    expect(index, `docs/README.md links ${guide}`).toContain(guide.slice('docs/'.length));
  }
  expect(readme).toContain(`${REPOSITORY}blob/main/docs/README.md`);
  for (const guide of GUIDES.filter((path) => path !== 'docs/README.md' && path !== 'docs/rxjs-9.md')) {
    expect(readme, `README.md links ${guide}`).toContain(`${REPOSITORY}blob/main/${guide}`);
  }
});

test('the slugs are GitHub\'s', () => {
  expect(slug('Two protocol eras (2025-11-25 and 2026-07-28)')).toBe('two-protocol-eras-2025-11-25-and-2026-07-28');
  expect(slug('Use with Express / Fastify / Hono / Bun')).toBe('use-with-express--fastify--hono--bun');
  expect(slug('Subscriptions (`subscriptions/listen`, MCP 2026-07-28)')).toBe('subscriptions-subscriptionslisten-mcp-2026-07-28');
  expect(slug('Bounds: which hold cluster-wide, which per node')).toBe('bounds-which-hold-cluster-wide-which-per-node');
});
