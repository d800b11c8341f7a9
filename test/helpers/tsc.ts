/**
 * Runs the repository's own TypeScript compiler over a tsconfig and reads its
 * diagnostics, for tests that prove what compiles and what does not (type
 * fixtures, README code blocks). One child process per call, bounded by a
 * timeout, so it ends by itself.
 */
import { execFile } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));

export interface TscDiagnostic {
  /** Relative to the repository root, with forward slashes. */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: string;
  readonly message: string;
}

export interface TscRun {
  readonly exitCode: number;
  readonly diagnostics: TscDiagnostic[];
  readonly output: string;
}

const DIAGNOSTIC = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/;

export function parseDiagnostics(output: string): TscDiagnostic[] {
  const diagnostics: TscDiagnostic[] = [];
  for (const line of output.split('\n')) {
    const match = DIAGNOSTIC.exec(line);
    if (match !== null) {
      const [, file, row, column, code, message] = match as unknown as [string, string, string, string, string, string];
      const path = relative(REPO_ROOT, fileURLToPath(new URL(file, `file://${REPO_ROOT}/`))).replaceAll('\\', '/');
      diagnostics.push({ file: path, line: Number(row), column: Number(column), code, message });
    } else if (line.startsWith(' ') && diagnostics.length > 0) {
      const last = diagnostics.pop()!;
      diagnostics.push({ ...last, message: `${last.message}\n${line.trim()}` });
    }
  }
  return diagnostics;
}

/** `tsc -p project --pretty false` from the repository root; resolves with its exit code, never rejects on type errors. */
export function runTsc(project: string, timeoutMs = 120_000): Promise<TscRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [TSC, '-p', project, '--pretty', 'false'],
      { cwd: REPO_ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        if (exitCode === -1) return reject(new Error(`tsc did not finish: ${error?.message}\n${stderr}`));
        const output = `${stdout}${stderr}`;
        resolve({ exitCode, diagnostics: parseDiagnostics(output), output });
      },
    );
  });
}
