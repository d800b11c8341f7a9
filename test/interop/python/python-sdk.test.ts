/**
 * Interop with the official Python MCP SDK (`mcp`, pinned in ./venv.ts) in
 * both eras: its `Client` in 'auto', pinned to 2026-07-28 and 'legacy',
 * over stdio and over Streamable HTTP on 127.0.0.1 port 0, against the BUILT
 * demo (`npm test` builds first). ./client.py lists tools, calls echo, and
 * answers delete_note's approval question decline → accept → accept for one
 * note, printing a JSON line per step: declined is denied, accepted runs
 * exactly once (the third call finds the note gone and was asked anew).
 * Modern answers go through MRTR (input_required, retried by the SDK: each
 * call's line counts the InputRequiredResults seen so far); legacy ones
 * through parking (a server-sent elicitation/create, no input_required).
 * Python is optional here: without python3 or the package the file skips and
 * says why on the console.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { assertDemoBuilt, DEMO_MAIN as MAIN, ROOT, serveDemo, stopDemos } from '../demo-process.js';
import { preparePythonSdk, PYTHON_MCP_VERSION } from './venv.js';

const SCRIPT = fileURLToPath(new URL('./client.py', import.meta.url));
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const RUN_MS = 45_000;

const sdk = await preparePythonSdk();
if (!sdk.ok) console.warn(`[interop/python] SKIPPED: the Python MCP SDK ${PYTHON_MCP_VERSION} is unavailable: ${sdk.reason}`);
else console.info(`[interop/python] Python mcp==${PYTHON_MCP_VERSION} at ${sdk.python}${sdk.cached ? ' (cached venv)' : ' (new venv)'}`);

beforeAll(() => {
  if (sdk.ok) assertDemoBuilt();
});

afterEach(stopDemos);

type Line = Record<string, unknown> & { event: string };

/** Runs client.py in the venv; every stdout line is one JSON object. */
function runClient(args: string[]): Promise<Line[]> {
  if (!sdk.ok) throw new Error('unreachable: skipped without the SDK');
  return new Promise((resolve, reject) => {
    execFile(sdk.python, [SCRIPT, ...args], { cwd: ROOT, timeout: RUN_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      const lines = stdout.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Line);
      if (error) reject(new Error(`client.py ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr.split('\n').slice(-20).join('\n')}`));
      else resolve(lines);
    });
  });
}

const deny = (detail: string) => JSON.stringify({ error: 'authorization_required', tool: 'delete_note', decision: 'ask', detail });

function expectFullRun(lines: Line[], protocolVersion: string, pinned: boolean, mrtr: boolean): void {
  expect(lines.map((line) => line.event)).toEqual(['connected', 'tools', 'echo', 'delete_note', 'delete_note', 'delete_note', 'question', 'closed']);
  // A pinned client adopts the version without a discover round trip, so it never learns the server's name.
  expect(lines[0]).toEqual({ event: 'connected', protocolVersion, server: pinned ? null : 'rxmcp-demo' });
  expect(lines[1]).toEqual({ event: 'tools', names: ['add', 'delete_note', 'echo', 'fail', 'notes_board', 'reject_input', 'slow_task'] });
  expect(lines[2]).toEqual({ event: 'echo', text: 'from python', isError: false });
  expect(lines.slice(3, 6)).toEqual([
    { event: 'delete_note', answer: 'decline', isError: true, text: deny('declined'), questions: 1, inputRequired: mrtr ? 1 : 0 },
    { event: 'delete_note', answer: 'accept', isError: false, text: 'Deleted note 1', questions: 2, inputRequired: mrtr ? 2 : 0 },
    // Asked anew (the approval was spent), approved, and the tool ran again: the note is gone.
    { event: 'delete_note', answer: 'accept', isError: true, text: 'No note with id 1', questions: 3, inputRequired: mrtr ? 3 : 0 },
  ]);
  expect(lines[6]).toMatchObject({
    event: 'question',
    mode: 'form',
    requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  });
}

const MODES = [
  { mode: 'auto', protocolVersion: MODERN, pinned: false, mrtr: true },
  { mode: MODERN, protocolVersion: MODERN, pinned: true, mrtr: true },
  { mode: 'legacy', protocolVersion: LEGACY, pinned: false, mrtr: false },
] as const;

describe.skipIf(!sdk.ok)(`the Python MCP SDK ${PYTHON_MCP_VERSION} client against the demo`, () => {
  for (const { mode, protocolVersion, pinned, mrtr } of MODES) {
    const through = mrtr ? 'MRTR' : 'legacy parking';
    test(`stdio, mode ${mode}: ${protocolVersion}, tools, a call, approval through ${through}`, async () => {
      expectFullRun(await runClient(['stdio', process.execPath, MAIN, mode]), protocolVersion, pinned, mrtr);
    }, RUN_MS + 5_000);

    test(`Streamable HTTP, mode ${mode}: ${protocolVersion}, tools, a call, approval through ${through}`, async () => {
      expectFullRun(await runClient(['http', (await serveDemo()).mcp, mode]), protocolVersion, pinned, mrtr);
    }, RUN_MS + 5_000);
  }
});
