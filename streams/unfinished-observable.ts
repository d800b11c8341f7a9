/**
 * A handler's Observable answers with its LAST value, when it COMPLETES. One
 * that emits and never completes (a BehaviorSubject, `interval`, a Subject
 * kept open) leaves the call waiting until `callbackTimeoutMs` (five minutes
 * by default), and the timeout alone does not say why. So the values an
 * Observable answer emits are counted, and when its call times out having
 * seen some, the log says that the Observable emitted but never completed,
 * and how to end it.
 */
import type { CallContext } from '../lib/context.js';
import type { Logger } from '../lib/logger.js';
import { CallCancelledError } from './worker.js';

function isCallbackTimeout(reason: unknown): boolean {
  return reason instanceof CallCancelledError && reason.message === 'callback_timeout';
}

/**
 * `onValue`, counting what it sees; at a callback timeout of this call after
 * at least one value, one warning naming the tool and the count.
 */
export function watchObservableAnswer(
  logger: Logger,
  tool: string,
  ctx: CallContext,
  onValue: (value: unknown) => boolean,
): (value: unknown) => boolean {
  let values = 0;
  ctx.signal.addEventListener(
    'abort',
    () => {
      if (values === 0 || !isCallbackTimeout(ctx.signal.reason)) return;
      logger.warn(
        { tool, values, reason: 'callback_timeout' },
        `tool ${tool} timed out because its Observable emitted ${values} value${values === 1 ? '' : 's'} but never completed: ` +
          'a tool answers with the last value once its Observable completes; end it (take(1), first(), takeUntil(...)) or return a Promise',
      );
    },
    { once: true },
  );
  return (value) => {
    values += 1;
    return onValue(value);
  };
}
