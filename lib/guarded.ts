/**
 * Containment at the edges where RxJS would otherwise take the process down.
 *
 * RxJS hands an exception thrown inside a subscriber's callback (or an error
 * notification nobody handles) to its unhandled-error reporter, which
 * rethrows it on a timer: an uncaught exception, and every transport in the
 * process gone with it. So every terminal observer the library itself
 * subscribes (each transport's writer, `server.subscribe`'s observer) is
 * wrapped here: a throw is logged and swallowed, an error notification is
 * logged, and logging cannot throw either: a configured logger is wrapped
 * once, at createServer, by `safeLogger`.
 */
import type { Observer } from 'rxjs';
import type { Logger } from './logger.js';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** Logs, and swallows whatever a (user-supplied) logger throws: reporting a failure must not become one. */
export function logSafely(logger: Logger, level: Level, fields: unknown, message?: string): void {
  try {
    if (message === undefined) logger[level](fields);
    else logger[level](fields, message);
  } catch {
    // Nowhere left to report it.
  }
}

/** `logger` with every level method unable to throw (a broken logger loses lines, never the server). */
export function safeLogger(logger: Logger): Logger {
  return {
    debug: (obj, msg) => logSafely(logger, 'debug', obj, msg),
    info: (obj, msg) => logSafely(logger, 'info', obj, msg),
    warn: (obj, msg) => logSafely(logger, 'warn', obj, msg),
    error: (obj, msg) => logSafely(logger, 'error', obj, msg),
  };
}

class GuardedObserver<T> implements Observer<T> {
  constructor(
    private readonly target: Partial<Observer<T>>,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  next(value: T): void {
    try {
      this.target.next?.(value);
    } catch (err) {
      logSafely(this.logger, 'error', { err }, `${this.what}: a message could not be delivered; dropped`);
    }
  }

  error(error: unknown): void {
    try {
      if (this.target.error !== undefined) this.target.error(error);
      else logSafely(this.logger, 'error', { err: error }, `${this.what}: the stream failed`);
    } catch (err) {
      logSafely(this.logger, 'error', { err }, `${this.what}: the failure handler threw`);
    }
  }

  complete(): void {
    try {
      this.target.complete?.();
    } catch (err) {
      logSafely(this.logger, 'error', { err }, `${this.what}: the completion handler threw`);
    }
  }
}

/**
 * `observer` (or a next function) whose callbacks never throw out and whose
 * error is always handled; `what` names it in the log.
 */
export function guardedObserver<T>(
  logger: Logger,
  what: string,
  observer: Partial<Observer<T>> | ((value: T) => void),
): Observer<T> {
  return new GuardedObserver(typeof observer === 'function' ? { next: observer } : observer, logger, what);
}
