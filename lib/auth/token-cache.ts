/**
 * TokenCache: verification outcomes by token, bounded in count (least
 * recently used goes first) and in time (each entry's own expiry, judged on
 * the server's scheduler). Entries are keyed by a SHA-256 of the token, so the
 * cache never holds a token that could be replayed from a heap dump.
 */
import * as crypto from 'node:crypto';
import type { SchedulerLike } from 'rxjs';

/** One-shot hashing (Node 20.12+) skips the Hash object: about half the cost, paid on every authenticated request. */
const oneShot: typeof crypto.hash | undefined = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function tokenHash(token: string): string {
  return oneShot !== undefined ? oneShot('sha256', token, 'base64url') : crypto.createHash('sha256').update(token).digest('base64url');
}

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
}

export class TokenCache<V> {
  /** Map order is use order: the first key is the least recently used. */
  private readonly entries = new Map<string, Entry<V>>();

  constructor(
    private readonly max: number,
    private readonly scheduler: SchedulerLike,
  ) {}

  get(hash: string): V | undefined {
    const entry = this.entries.get(hash);
    if (entry === undefined) return undefined;
    this.entries.delete(hash);
    if (this.scheduler.now() >= entry.expiresAt) return undefined;
    this.entries.set(hash, entry);
    return entry.value;
  }

  /** Keeps `value` until `expiresAt` (epoch ms on the scheduler); nothing already expired is stored. */
  set(hash: string, value: V, expiresAt: number): void {
    this.entries.delete(hash);
    if (this.scheduler.now() >= expiresAt) return;
    this.entries.set(hash, { value, expiresAt });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
