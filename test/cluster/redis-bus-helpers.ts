/** Shared pieces of the Redis bus and key-ring tests: a bounded wait, a recording logger, a unique server id. */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../lib/logger.js';

/** Polls `ready` every 10 ms for at most `ms` (real time: these tests talk to a real Redis). */
export async function waitFor(ready: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export interface RecordingLogger extends Logger {
  readonly lines: Array<[string, unknown, string | undefined]>;
  messages(level?: string): string[];
}

export function recordingLogger(): RecordingLogger {
  const lines: Array<[string, unknown, string | undefined]> = [];
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push([level, obj, msg]);
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    messages: (level) => lines.filter(([l]) => level === undefined || l === level).map(([, , msg]) => msg ?? ''),
  };
}

/** A server id no other test uses, so tests share one Redis without hearing each other. */
export function uniqueServerId(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}
