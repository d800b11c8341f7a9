/**
 * A Lua script run by its SHA1 (EVALSHA), loaded on first use or after the
 * server forgot it (NOSCRIPT: a restart, SCRIPT FLUSH, a failover to a
 * replica that never saw it). One round trip on the hot path.
 */
import { createHash } from 'node:crypto';

/** A Lua script run by its SHA1 (EVALSHA), loaded on first use or after Redis forgot it (NOSCRIPT). */
export class LuaScript {
  readonly sha1: string;

  constructor(
    /** Named in errors and logs. */
    readonly name: string,
    readonly source: string,
  ) {
    this.sha1 = createHash('sha1').update(source, 'utf8').digest('hex');
  }
}

export function isNoScriptError(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
