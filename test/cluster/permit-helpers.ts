/**
 * Shared by the RedisPermitPool tests: unique deployments, a logger that
 * keeps its lines, a permit asked for as a Promise, Redis reads, and a
 * bounded wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Subscription } from 'rxjs';
import { clusterKeys, type ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink } from '../../cluster/redis/link.js';
import type { RedisPermitPool } from '../../cluster/redis/permits.js';
import type { Logger } from '../../lib/index.js';
import type { PermitAnswer } from '../../lib/ports/permits.js';

let serverSeq = 0;
export function uniqueKeys(): ClusterKeys {
  serverSeq += 1;
  return clusterKeys(`permits-${process.pid}-${serverSeq}`);
}

/** A logger that keeps its lines, so a test can see what was reported. */
export function memoryLogger(): Logger & { lines: Array<{ level: string; msg: string | undefined }> } {
  const lines: Array<{ level: string; msg: string | undefined }> = [];
  const at = (level: string) => (_obj: unknown, msg?: string) => void lines.push({ level, msg });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** One permit asked for: resolves with the answer; `subscription` holds (or releases) it. */
export interface Asked {
  readonly answer: Promise<PermitAnswer>;
  readonly subscription: Subscription;
}

export function ask(pool: RedisPermitPool, owner: string): Asked {
  let resolve!: (answer: PermitAnswer) => void;
  const answer = new Promise<PermitAnswer>((r) => (resolve = r));
  const subscription = pool.permit(owner).subscribe({ next: resolve, error: () => resolve({ granted: false, scope: 'cluster' }) });
  return { answer, subscription };
}

export async function zcard(link: RedisLink, key: string): Promise<number> {
  return Number(await link.command(key, ['ZCARD', key]));
}

/** The lease ends (Redis ms) of every member of `key`. */
export async function leaseEnds(link: RedisLink, key: string): Promise<number[]> {
  const reply = (await link.command(key, ['ZRANGE', key, '0', '-1', 'WITHSCORES'])) as unknown[];
  // RESP3 (node-redis's default) answers [member, score] pairs; RESP2 a flat list.
  if (reply.every(Array.isArray)) return (reply as unknown[][]).map((pair) => Number(pair[1]));
  return reply.filter((_v, i) => i % 2 === 1).map(Number);
}

export async function redisNow(link: RedisLink, key: string): Promise<number> {
  const [s, us] = (await link.command(key, ['TIME'])) as [string, string];
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / everyMs) + 1; i += 1) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) break;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}
