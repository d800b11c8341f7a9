/**
 * Issue 21.4: `npm init -y` writes `"type": "commonjs"`, and TypeScript
 * compiled `import { createServer } from 'rxmcp'` into a require() that
 * threw only at run time. Each entry point's `require` condition now has
 * typings (dist/esm-only/*.d.cts, written by the build) under which every
 * name is the type `rxmcp_is_ES_modules_only__set_type_module_in_package_json`,
 * so `tsc` refuses the CommonJS project with the fix in the error; the same
 * code in an ES module project compiles.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { parseDiagnostics, REPO_ROOT } from '../helpers/tsc.js';

const run = promisify(execFile);
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const FIX = 'rxmcp_is_ES_modules_only__set_type_module_in_package_json';
const ENTRIES = Object.keys((JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports)
  .filter((entry) => entry !== './package.json')
  .map((entry) => (entry === '.' ? 'rxmcp' : `rxmcp/${entry.slice(2)}`));

const APP = `
import { createServer, Registry, type ServerOptions } from 'rxmcp';
import { serveStdio } from 'rxmcp/transports';
import { createExpressHandler } from 'rxmcp/express';

const options: ServerOptions = { registry: new Registry(), name: 'app' };
const server = createServer(options);
serveStdio(server);
export const handler = createExpressHandler(server);
`;

let work: string;

/** A project importing rxmcp the way a user's does (node_modules/rxmcp is this repository). */
function project(name: string, type: 'commonjs' | 'module'): string {
  const dir = join(work, name);
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'rxmcp'), 'dir');
  symlinkSync(join(REPO_ROOT, 'node_modules', '@types', 'node'), join(dir, 'node_modules', '@types', 'node'), 'dir');
  // What the ES module project's compile reads through rxmcp's own typings.
  for (const dep of ['rxjs', 'express', '@types/express']) symlinkSync(join(REPO_ROOT, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, type }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, noEmit: true, types: ['node'] }, files: ['app.ts'] }),
  );
  writeFileSync(join(dir, 'app.ts'), APP);
  return dir;
}

async function tsc(dir: string): Promise<{ code: number; output: string }> {
  return run(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { cwd: dir, timeout: 60_000 }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
  );
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'rxmcp-cjs-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

test('a CommonJS project does not compile, and every error at a use of rxmcp names the fix', async () => {
  const result = await tsc(project('cjs', 'commonjs'));
  expect(result.code).not.toBe(0);
  const diagnostics = parseDiagnostics(result.output);
  // registry: ..., new Registry(), createServer(...), serveStdio(...), createExpressHandler(...)
  expect(diagnostics.length).toBeGreaterThanOrEqual(5);
  for (const d of diagnostics) expect(d.message).toContain(FIX);
}, 90_000);

test('the same code in a project with "type": "module" compiles', async () => {
  const result = await tsc(project('esm', 'module'));
  expect(result.output).toBe('');
  expect(result.code).toBe(0);
}, 90_000);

test.each(ENTRIES)('require(%j) fails at run time saying rxmcp is ES modules only', async (entry) => {
  const dir = join(work, 'cjs');
  const failure = await run(process.execPath, ['-e', `require(${JSON.stringify(entry)})`], { cwd: dir, timeout: 15_000 }).then(
    () => undefined,
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure?.code).toBe(1);
  expect(failure?.stderr).toContain('rxmcp is an ES module only package');
});

test("the README's Install says to set \"type\": \"module\"", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Quick start'));
  expect(install).toContain('"type": "module"');
});
