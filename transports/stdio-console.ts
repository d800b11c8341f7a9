/**
 * While a stdio transport owns process.stdout, stdout is the wire: one
 * `console.log('debug')` in a handler lands between two JSON-RPC lines and
 * the client drops the connection (or worse, misreads it). So serveStdio
 * sends the console's stdout methods to stderr for as long as it serves,
 * and puts them back when it stops. `process.stdout.write` itself is not
 * touched: code that writes to the wire on purpose still can.
 */
import { Console } from 'node:console';

/** The console methods that write to stdout (with those whose state they share: group indentation, timers, counters). */
const STDOUT_METHODS = [
  'log', 'info', 'debug', 'dir', 'dirxml', 'table', 'count', 'countReset', 'group', 'groupCollapsed', 'groupEnd', 'time', 'timeEnd', 'timeLog',
] as const;

type Method = (typeof STDOUT_METHODS)[number];

/** Marks the functions put in place, so a second stdio server in the process sees the console already moved. */
const MOVED = Symbol.for('rxmcp.stdio.console-moved');

/**
 * Sends console.log and its kin to stderr; returns what puts them back.
 * Putting back restores only a method still ours (one someone replaced since
 * stays theirs). When another stdio server moved them first, nothing is done.
 */
export function consoleToStderr(target: Console = console): () => void {
  if ((target.log as { [MOVED]?: true })[MOVED] === true) return () => {};
  const stderr = new Console({ stdout: process.stderr, stderr: process.stderr });
  const saved = new Map<Method, unknown>();
  const placed = new Map<Method, unknown>();
  for (const method of STDOUT_METHODS) {
    const original = target[method];
    const moved = Object.assign((...args: unknown[]) => (stderr[method] as (...a: unknown[]) => void)(...args), { [MOVED]: true as const });
    saved.set(method, original);
    placed.set(method, moved);
    (target as unknown as Record<Method, unknown>)[method] = moved;
  }
  return () => {
    for (const method of STDOUT_METHODS) {
      if (target[method] === placed.get(method)) (target as unknown as Record<Method, unknown>)[method] = saved.get(method);
    }
  };
}
