/**
 * Code blocks of the README and the guides in docs/ as compiled code:
 * `docCodeBlocks` (or `readmeCodeBlocks` over a markdown text) takes the
 * ```ts blocks under one heading (up to the next heading of the same or a
 * higher level), and `compileCodeBlocks` type-checks each as its own module
 * with the repository's tsc, importing `rxmcp` and `rxmcp/transports` the way
 * a user does (the package's own exports, so the BUILT types in dist/: run
 * `npm run build` first; `npm test` does). Errors come back at their file and
 * line. Any section of any of them can use it:
 *
 *   const blocks = docCodeBlocks('docs/tools-and-handlers.md', 'Typed tools');
 *   const errors = await compileCodeBlocks('typed-tools', blocks);
 *   expect(errors).toEqual([]);
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, runTsc } from './tsc.js';

export interface CodeBlock {
  /** 1-based line, in its markdown file, of the block's first line of code. */
  readonly line: number;
  readonly code: string;
  /** The markdown file it is in, relative to the repository root (README.md when not said). */
  readonly file?: string;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

/** The ```ts / ```typescript blocks under the heading whose text is `heading` (exactly, without the #s). */
export function readmeCodeBlocks(markdown: string, heading: string, languages: readonly string[] = ['ts', 'typescript']): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let level = 0;
  let fence: { marker: string; keep: boolean; start: number; body: string[] } | null = null;
  let found = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence !== null) {
      if (line.trimStart().startsWith(fence.marker)) {
        if (fence.keep) blocks.push({ line: fence.start, code: fence.body.join('\n') });
        fence = null;
      } else fence.body.push(line);
      continue;
    }
    const open = FENCE.exec(line.trimStart());
    if (open !== null) {
      fence = { marker: open[1]!, keep: level > 0 && languages.includes(open[2]!), start: i + 2, body: [] };
      continue;
    }
    const title = HEADING.exec(line);
    if (title === null) continue;
    const depth = title[1]!.length;
    if (level > 0 && depth <= level) break;
    if (level === 0 && title[2] === heading) {
      level = depth;
      found = true;
    }
  }
  if (!found) throw new Error(`README has no heading "${heading}"`);
  return blocks;
}

/** The ```ts blocks under `heading` in a markdown file of the repository (`README.md`, `docs/testing.md`, ...). */
export function docCodeBlocks(file: string, heading: string, languages: readonly string[] = ['ts', 'typescript']): CodeBlock[] {
  try {
    return readmeCodeBlocks(readFileSync(join(REPO_ROOT, file), 'utf8'), heading, languages).map((block) => ({ ...block, file }));
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/**
 * Writes each block to `.readme-blocks/<name>/` (git-ignored, inside the
 * package so `rxmcp` resolves to it) and compiles them in one tsc run under
 * the repository's compiler options. Returns the errors, each as
 * `<file>:<line>: TSnnnn <message>`; an empty list means every block compiles.
 */
export async function compileCodeBlocks(
  name: string,
  blocks: readonly CodeBlock[],
  /** Over the repository's: e.g. `{ exactOptionalPropertyTypes: true }`, TypeScript 7's `tsc --init` default. */
  compilerOptions: Record<string, unknown> = {},
  /** Files written beside the blocks and compiled with them (a module a block imports, ambient declarations), by name. */
  extraFiles: Readonly<Record<string, string>> = {},
): Promise<string[]> {
  if (!existsSync(join(REPO_ROOT, 'dist/lib/index.d.ts'))) {
    throw new Error('dist/lib/index.d.ts is missing: README blocks compile against the built types, run `npm run build` first');
  }
  const dir = join(REPO_ROOT, '.readme-blocks', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((block, i) => {
    const file = `block-${i + 1}.ts`;
    // `export {}` keeps each block a module of its own (its own imports, top-level await).
    writeFileSync(join(dir, file), `${block.code}\nexport {};\n`);
    return file;
  });
  for (const [file, text] of Object.entries(extraFiles)) {
    writeFileSync(join(dir, file), text);
    files.push(file);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.', noUnusedLocals: false, ...compilerOptions }, include: files }),
  );
  const run = await runTsc(join('.readme-blocks', name, 'tsconfig.json'));
  const prefix = `.readme-blocks/${name}/block-`;
  const errors = run.diagnostics.map((d) => {
    const index = d.file.startsWith(prefix) ? Number.parseInt(d.file.slice(prefix.length), 10) - 1 : -1;
    const block = blocks[index];
    const where = block === undefined ? `${d.file}:${d.line}` : `${block.file ?? 'README.md'}:${block.line + d.line - 1}`;
    return `${where}: ${d.code} ${d.message}`;
  });
  if (run.exitCode !== 0 && errors.length === 0) errors.push(`tsc failed without a diagnostic:\n${run.output}`);
  if (errors.length === 0) rmSync(dir, { recursive: true, force: true });
  return errors;
}
