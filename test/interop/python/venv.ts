/**
 * A virtualenv with the official Python MCP SDK (`mcp`, pinned) for the
 * interop tests, made only when `python3` is there. It is cached under the
 * OS temp dir, keyed by the pinned version, so a second run reuses it and
 * costs nothing; it is built in a sibling folder and renamed into place, so
 * a run that dies half-way (or two runs at once) never leaves a broken cache.
 * Every step is bounded in time. When Python, `venv` or the install is not
 * available, the answer says why, and the tests skip with that reason.
 */
import { execFile } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The pinned SDK release (the newest 2.3.x when this was written). */
export const PYTHON_MCP_VERSION = '2.3.0';

const PROBE_MS = 10_000;
const VENV_MS = 60_000;
const INSTALL_MS = 180_000;

export type PythonSdk = { readonly ok: true; readonly python: string; readonly cached: boolean } | { readonly ok: false; readonly reason: string };

const venvPython = (dir: string): string => (process.platform === 'win32' ? join(dir, 'Scripts', 'python.exe') : join(dir, 'bin', 'python'));

async function installedVersion(python: string): Promise<string | undefined> {
  if (!existsSync(python)) return undefined;
  try {
    const { stdout } = await run(python, ['-c', 'import importlib.metadata as m; print(m.version("mcp"))'], { timeout: PROBE_MS });
    return stdout.trim();
  } catch {
    return undefined;
  }
}

function why(step: string, error: unknown): string {
  const detail = error as { stderr?: string; message?: string; killed?: boolean };
  const tail = (detail.stderr || detail.message || String(error)).trim().split('\n').slice(-3).join(' | ');
  return `${step} failed${detail.killed ? ' (timed out)' : ''}: ${tail}`;
}

/** Finds or makes the cached virtualenv; never throws. */
export async function preparePythonSdk(system = process.env.RXMCP_PYTHON ?? 'python3'): Promise<PythonSdk> {
  try {
    await run(system, ['--version'], { timeout: PROBE_MS });
  } catch (error) {
    return { ok: false, reason: `no usable ${system} (${why('probe', error)})` };
  }
  const dir = join(tmpdir(), `rxmcp-interop-python-mcp-${PYTHON_MCP_VERSION}`);
  if ((await installedVersion(venvPython(dir))) === PYTHON_MCP_VERSION) return { ok: true, python: venvPython(dir), cached: true };

  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  try {
    await run(system, ['-m', 'venv', building], { timeout: VENV_MS });
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    return { ok: false, reason: why(`${system} -m venv`, error) };
  }
  try {
    const pip = ['-m', 'pip', 'install', '--retries', '1', '--timeout', '30', '--disable-pip-version-check', '--no-input', `mcp==${PYTHON_MCP_VERSION}`];
    await run(venvPython(building), pip, { timeout: INSTALL_MS, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    return { ok: false, reason: why(`pip install mcp==${PYTHON_MCP_VERSION}`, error) };
  }
  // A concurrent run may have won the race: keep its venv, drop ours.
  if ((await installedVersion(venvPython(dir))) !== PYTHON_MCP_VERSION) {
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(building, dir);
    } catch (error) {
      rmSync(building, { recursive: true, force: true });
      if ((await installedVersion(venvPython(dir))) !== PYTHON_MCP_VERSION) return { ok: false, reason: why('moving the venv into place', error) };
    }
  } else {
    rmSync(building, { recursive: true, force: true });
  }
  // A venv's scripts name their own folder; the interpreter itself runs from anywhere, and we only run `python client.py`.
  return { ok: true, python: venvPython(dir), cached: false };
}
