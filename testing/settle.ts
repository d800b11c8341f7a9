/**
 * settle: lets Promise chains and macrotask hops run until the code under
 * test goes quiet. A test cannot see pending Promises, so quiet is judged by
 * a counter the caller supplies (the clock's: timers scheduled, cancelled or
 * run): settled once `quietTurns` turns of the event loop in a row leave it
 * unchanged. Each turn is a real `setImmediate` (taken from node:timers, so a
 * test framework's fake timers, which patch the global, do not stop it),
 * which also drains every microtask queued before it.
 */
import { setImmediate } from 'node:timers';

/** How long settling waits: the turns of the event loop without activity that count as quiet. */
export interface SettleOptions {
  /** Turns of the event loop without activity that count as settled (default 3: an in-memory round trip is one or two). */
  readonly quietTurns?: number;
  /** Gives up (throws) after this many turns: something keeps scheduling forever (default 10 000). */
  readonly maxTurns?: number;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `step` does what is due and returns the activity count; settle returns once it stops moving. */
export async function settle(step: () => number, options: SettleOptions = {}): Promise<void> {
  const quietTurns = options.quietTurns ?? 3;
  const maxTurns = options.maxTurns ?? 10_000;
  let last = step();
  for (let turns = 0, quiet = 0; quiet < quietTurns; turns++) {
    if (turns >= maxTurns) throw new Error(`settle: still busy after ${maxTurns} turns of the event loop (something schedules on the clock without end)`);
    await nextTurn();
    const count = step();
    quiet = count === last ? quiet + 1 : 0;
    last = count;
  }
}
