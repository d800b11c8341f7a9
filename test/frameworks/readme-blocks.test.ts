/**
 * The "Use with Express / Fastify / Hono / Bun" section of docs/transports.md compiles:
 * its ```ts blocks are written to a folder inside the repository (so
 * `rxmcp/...` resolves through the package's own `exports` to the built
 * `dist/`, as it would for a user) and the repository's tsc checks them. A
 * block whose first line is `// NAME.ts` is written under that name, so the
 * others can import it.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HEADING = '## Use with Express / Fastify / Hono / Bun';

/** The ```ts blocks between `heading` and the next heading of its level. */
function tsBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no "${heading}" section`);
  const rest = markdown.slice(start + heading.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project, '--pretty', 'false'],
      { cwd: ROOT, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, output: `${stdout}${stderr}` }),
    );
  });
}

test('the framework section\'s code blocks compile against the built package', async () => {
  expect(existsSync(join(ROOT, 'dist/transports/frameworks/express.d.ts')), 'run `npm run build` first (npm test does)').toBe(true);
  const blocks = tsBlocks(readFileSync(join(ROOT, 'docs/transports.md'), 'utf8'), HEADING);
  expect(blocks.length).toBeGreaterThanOrEqual(5);
  const dir = mkdtempSync(join(ROOT, '.tmp-readme-frameworks-'));
  try {
    blocks.forEach((block, i) => {
      const named = /^\/\/ ([\w-]+\.ts)\n/.exec(block);
      writeFileSync(join(dir, named?.[1] ?? `block-${i}.ts`), block);
    });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['*.ts'],
      }),
    );
    const { code, output } = await tsc(join(dir, 'tsconfig.json'));
    expect(output).toBe('');
    expect(code).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
