/**
 * runNodeTestBlocks: code blocks that are `node:test` suites, compiled with
 * the repository's tsc inside the package (so `rxmcp` resolves to it, in a
 * git-ignored folder) and run by node's own test runner. Answers the tsc
 * diagnostics and the TAP output (with `# pass N` and `# fail N`), so a guide's
 * test is run exactly as a user would run it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { CodeBlock } from './readme-blocks.js';
import { REPO_ROOT, runTsc, type TscDiagnostic } from './tsc.js';

const run = promisify(execFile);

export async function runNodeTestBlocks(name: string, blocks: readonly CodeBlock[]): Promise<{ diagnostics: TscDiagnostic[]; tap: string }> {
  const dir = join(REPO_ROOT, '.readme-blocks', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = blocks.map((block, i) => {
    writeFileSync(join(dir, `block-${i + 1}.test.ts`), `${block.code}\nexport {};\n`);
    return `block-${i + 1}.test.ts`;
  });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tsconfig.json', compilerOptions: { rootDir: '.', outDir: 'out', declaration: false }, include: files }));
  try {
    const compiled = await runTsc(join('.readme-blocks', name, 'tsconfig.json'));
    if (compiled.diagnostics.length > 0) return { diagnostics: compiled.diagnostics, tap: '' };
    const tap = await run(process.execPath, ['--test', '--test-reporter=tap', ...files.map((f) => join(dir, 'out', f.replace(/\.ts$/, '.js')))], {
      cwd: REPO_ROOT,
      timeout: 60_000,
      env: { ...process.env, RXMCP_LOG_LEVEL: 'silent' },
    }).then(
      ({ stdout }) => stdout,
      (error: { stdout: string; stderr: string }) => `${error.stdout}\n${error.stderr}`,
    );
    return { diagnostics: [], tap };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
