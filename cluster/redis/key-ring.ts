/**
 * The MRTR requestState key ring of a deployment, kept in Redis so every
 * process seals with the same secret and opens what any other sealed.
 *
 * The ring is one Redis list, `{rxmcp:<serverId>}:request-state-keys`, of
 * secrets as base64 (each at least 32 bytes), the sealing one first. The
 * first process to start on an empty deployment creates it with one random
 * secret, in one script (create-if-absent and read are one step), so
 * processes starting together end with the same ring. `rotateRequestStateKey`
 * prepends a new secret and keeps at most `keep`: states sealed with an older
 * secret still open until it falls off the end.
 *
 * A process reads the ring when it starts (`loadRequestStateKeys`, called by
 * redisCluster) and holds it for its life: after a rotation, restart the
 * processes (rolling) so they seal with the new secret; until a process
 * restarts it cannot open states sealed with a secret newer than its copy
 * (the client gets the fixed invalid-requestState error and asks again).
 * The list is never given a TTL: on a Redis without persistence, losing it
 * means a new secret on the next start, so such deployments should set
 * `requestStateKeys` themselves (which wins over the ring in redisCluster).
 *
 * What is read is checked: an entry that is not canonical base64 of 32 to
 * 1024 bytes, or repeats another, is logged and skipped; a ring with no
 * usable entry refuses to start (a per-process key would break every
 * cross-process MRTR round trip silently).
 */
import { randomBytes } from 'node:crypto';
import { logSafely } from '../../lib/guarded.js';
import { stderrLogger, type Logger } from '../../lib/logger.js';
import { MIN_SECRET_BYTES } from '../../lib/ports/key-ring.js';
import { MAX_REQUEST_STATE_KEYS } from '../../lib/mrtr/mrtr-options.js';
import type { ClusterKeys } from './keys.js';
import type { RedisLink, RedisReply } from './link.js';
import { LuaScript } from './lua-script.js';

/** Longest secret accepted from Redis. */
const MAX_SECRET_BYTES = 1024;
/** The ring `rotateRequestStateKey` keeps by default: the new secret and the one before it. */
const DEFAULT_KEEP = 2;

/** KEYS[1] the ring; ARGV[1] a fresh secret, ARGV[2] how many to read. Creates the ring when absent, returns it. */
const LOAD = new LuaScript(
  'rxmcp-key-ring-load',
  `if redis.call('EXISTS', KEYS[1]) == 0 then redis.call('RPUSH', KEYS[1], ARGV[1]) end
return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)`,
);

/** KEYS[1] the ring; ARGV[1] the new secret, ARGV[2] how many to keep. Prepends, trims, returns the ring. */
const ROTATE = new LuaScript(
  'rxmcp-key-ring-rotate',
  `redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return redis.call('LRANGE', KEYS[1], 0, -1)`,
);

/** Options of `loadRequestStateKeys`. */
export interface KeyRingOptions {
  /** Where skipped entries are reported; default pino on stderr. */
  readonly logger?: Logger | undefined;
}

/** Options of `rotateRequestStateKey`. */
export interface RotateOptions extends KeyRingOptions {
  /** Secrets kept, the new one included: 1 to 16, default 2. */
  readonly keep?: number | undefined;
}

/** The Redis key of the deployment's `requestStateKeys` ring (a list of base64 secrets). */
export function requestStateKeysKey(keys: ClusterKeys): string {
  return keys.key('request-state-keys');
}

function freshSecret(): string {
  return randomBytes(MIN_SECRET_BYTES).toString('base64');
}

/** The usable secrets of a ring as Redis returned it, in order; the rest is logged and skipped. */
function validSecrets(reply: RedisReply, key: string, logger: Logger): Uint8Array[] {
  if (!Array.isArray(reply)) {
    logSafely(logger, 'error', { key }, 'the request-state key ring in Redis is not a list');
    return [];
  }
  const secrets: Uint8Array[] = [];
  const seen = new Set<string>();
  reply.slice(0, MAX_REQUEST_STATE_KEYS).forEach((entry, index) => {
    const bytes = typeof entry === 'string' ? decodeSecret(entry) : undefined;
    if (bytes === undefined || seen.has(entry as string)) {
      logSafely(logger, 'warn', { key, index }, 'skipped an entry of the request-state key ring: not a new base64 secret of 32 to 1024 bytes');
      return;
    }
    seen.add(entry as string);
    secrets.push(bytes);
  });
  return secrets;
}

function decodeSecret(text: string): Uint8Array | undefined {
  if (text.length > Math.ceil(MAX_SECRET_BYTES / 3) * 4) return undefined;
  const bytes = Buffer.from(text, 'base64');
  // Buffer.from skips what is not base64; only a text that round-trips is the secret it claims to be.
  if (bytes.toString('base64') !== text) return undefined;
  if (bytes.length < MIN_SECRET_BYTES || bytes.length > MAX_SECRET_BYTES) return undefined;
  return Uint8Array.from(bytes);
}

/** Redis's WRONGTYPE said plainly; other failures pass as they are. */
function notAList(err: unknown, key: string): never {
  if (err instanceof Error && err.message.includes('WRONGTYPE')) {
    throw new Error(`the request-state key ring in Redis (${key}) is not a list: fix or delete it, or set requestStateKeys`, { cause: err });
  }
  throw err;
}

function usable(secrets: Uint8Array[], key: string): Uint8Array[] {
  if (secrets.length === 0) {
    throw new Error(`the request-state key ring in Redis (${key}) holds no usable secret: fix or delete it, or set requestStateKeys`);
  }
  return secrets;
}

/**
 * The deployment's ring, sealing secret first, created with one random
 * secret when absent. Rejects when Redis holds no usable secret there.
 */
export async function loadRequestStateKeys(link: RedisLink, keys: ClusterKeys, options: KeyRingOptions = {}): Promise<Uint8Array[]> {
  const key = requestStateKeysKey(keys);
  const reply = await link.run(LOAD, [key], [freshSecret(), MAX_REQUEST_STATE_KEYS]).catch((err: unknown) => notAList(err, key));
  return usable(validSecrets(reply, key, options.logger ?? stderrLogger()), key);
}

/**
 * Puts a new random secret first and keeps at most `keep` secrets; resolves
 * to the new ring. Running processes go on with the ring they loaded until
 * they restart (see the module comment).
 */
export async function rotateRequestStateKey(link: RedisLink, keys: ClusterKeys, options: RotateOptions = {}): Promise<Uint8Array[]> {
  const keep = options.keep ?? DEFAULT_KEEP;
  if (!Number.isSafeInteger(keep) || keep < 1 || keep > MAX_REQUEST_STATE_KEYS) {
    throw new RangeError(`keep must be an integer from 1 to ${MAX_REQUEST_STATE_KEYS}`);
  }
  const key = requestStateKeysKey(keys);
  const reply = await link.run(ROTATE, [key], [freshSecret(), keep]).catch((err: unknown) => notAList(err, key));
  return usable(validSecrets(reply, key, options.logger ?? stderrLogger()), key);
}
