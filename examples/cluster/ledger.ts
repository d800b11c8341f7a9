/**
 * What the cluster example's tools leave behind, kept in the deployment's
 * Redis (under its hash tag) so any node, and a test, can read it: which
 * node started, which finished and which saw stopped each recorded run, the
 * shared notes, and a gauge of the handlers running right now on live nodes.
 * This is the example's own state (the "database" of its tools), not
 * rxmcp's: every list is trimmed, every key expires, and every value read
 * back is checked.
 */
import type { ClusterKeys } from '../../cluster/redis/keys.js';
import type { RedisLink, RedisReply } from '../../cluster/redis/link.js';
import { LuaScript } from '../../cluster/redis/lua-script.js';

/** How long the example's records live; a test reads them within seconds. */
const RECORD_TTL_MS = 600_000;
/** Longest run list kept per key. */
const MAX_RUNS = 256;
/** Most notes the shared store holds. */
export const MAX_NOTES = 1000;
/** Most entries the running gauge holds; past it a start is refused (a leak would show, not grow). */
const MAX_RUNNING = 4096;
/** A node's heartbeat key lives this long; a node renews it every third of it. */
export const HEARTBEAT_TTL_MS = 1_000;

/** Names accepted as record keys and note ids: no separator tricks inside a key. */
export const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * One start of a gauged handler: drop the entries of nodes whose heartbeat
 * expired (they died with their handlers), add ours, keep the highest count
 * seen. KEYS: running set, max key; ARGV: member ("<node>|<call>"), heartbeat
 * key prefix, cap, ttl. The heartbeat keys it reads are built from the
 * prefix (one per node seen): they carry the same hash tag, so on Redis
 * Cluster they live in the declared keys' slot.
 */
const GAUGE_ENTER = new LuaScript(
  'example-gauge-enter',
  `local members = redis.call('SMEMBERS', KEYS[1])
for _, member in ipairs(members) do
  local node = string.match(member, '^([^|]+)|')
  if node == nil or redis.call('EXISTS', ARGV[2] .. node) == 0 then redis.call('SREM', KEYS[1], member) end
end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local now = redis.call('SCARD', KEYS[1])
local max = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if now > max then redis.call('SET', KEYS[2], now, 'PX', ARGV[4]) end
return now`,
);

function asInteger(reply: RedisReply, what: string): number {
  const value = typeof reply === 'string' ? Number(reply) : reply;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw new Error(`unexpected Redis reply for ${what}: ${JSON.stringify(reply)}`);
  return value;
}

function asStrings(reply: RedisReply): string[] {
  return Array.isArray(reply) ? reply.filter((item): item is string => typeof item === 'string') : [];
}

export interface ExampleLedger {
  /** Appends this node to `starts:<key>` (the run began). */
  started(key: string): Promise<void>;
  /** Appends this node to `runs:<key>` (the side effect happened) and returns how many runs the key has. */
  ran(key: string): Promise<number>;
  /** Appends this node to `aborts:<key>` (the run's ctx.signal fired: it was stopped). */
  aborted(key: string): Promise<void>;
  starts(key: string): Promise<string[]>;
  runs(key: string): Promise<string[]>;
  aborts(key: string): Promise<string[]>;
  /** Adds a note; false when the store is full. */
  addNote(id: string, text: string): Promise<boolean>;
  /** Removes a note; false when there was none. */
  deleteNote(id: string): Promise<boolean>;
  notes(): Promise<Array<{ id: string; text: string }>>;
  note(id: string): Promise<string | undefined>;
  /** Counts a gauged handler in; the returned function counts it out (idempotent). */
  enterGauge(callId: string): Promise<() => Promise<void>>;
  /** The gauged handlers counted in right now, as `<node>|<call>`. */
  running(): Promise<string[]>;
  /** The highest number of gauged handlers seen running at once on live nodes. */
  gaugeMax(): Promise<number>;
  /** Starts the highest-seen count over (between two floods of a test). */
  resetGaugeMax(): Promise<void>;
  /** Renews this node's heartbeat key. */
  heartbeat(): Promise<void>;
}

export function exampleLedger(link: RedisLink, keys: ClusterKeys, nodeId: string): ExampleLedger {
  const key = (...parts: string[]) => keys.key('example', ...parts);
  const runningKey = key('gauge', 'running');
  const maxKey = key('gauge', 'max');
  const notesKey = key('notes');
  const heartbeatPrefix = `${key('alive')}:`;
  const push = async (list: string): Promise<number> => {
    const length = asInteger(await link.command(list, ['RPUSH', list, nodeId]), 'RPUSH');
    await link.command(list, ['LTRIM', list, String(-MAX_RUNS), '-1']);
    await link.command(list, ['PEXPIRE', list, String(RECORD_TTL_MS)]);
    return length;
  };
  const list = async (name: string) => asStrings(await link.command(name, ['LRANGE', name, '0', '-1']));
  return {
    async started(name) {
      await push(key('starts', name));
    },
    ran: (name) => push(key('runs', name)),
    async aborted(name) {
      await push(key('aborts', name));
    },
    starts: (name) => list(key('starts', name)),
    runs: (name) => list(key('runs', name)),
    aborts: (name) => list(key('aborts', name)),
    async addNote(id, text) {
      if (asInteger(await link.command(notesKey, ['HLEN', notesKey]), 'HLEN') >= MAX_NOTES) return false;
      await link.command(notesKey, ['HSET', notesKey, id, text]);
      await link.command(notesKey, ['PEXPIRE', notesKey, String(RECORD_TTL_MS)]);
      return true;
    },
    async deleteNote(id) {
      return asInteger(await link.command(notesKey, ['HDEL', notesKey, id]), 'HDEL') === 1;
    },
    async notes() {
      const flat = asStrings(await link.command(notesKey, ['HGETALL', notesKey]));
      const notes: Array<{ id: string; text: string }> = [];
      for (let i = 0; i + 1 < flat.length; i += 2) if (NAME.test(flat[i]!)) notes.push({ id: flat[i]!, text: flat[i + 1]! });
      return notes.sort((a, b) => a.id.localeCompare(b.id));
    },
    async note(id) {
      const text = await link.command(notesKey, ['HGET', notesKey, id]);
      return typeof text === 'string' ? text : undefined;
    },
    async enterGauge(callId) {
      const member = `${nodeId}|${callId}`;
      const now = asInteger(await link.run(GAUGE_ENTER, [runningKey, maxKey], [member, heartbeatPrefix, MAX_RUNNING, RECORD_TTL_MS]), 'gauge');
      if (now < 0) throw new Error('the running gauge is full');
      let left = false;
      return async () => {
        if (left) return;
        left = true;
        await link.command(runningKey, ['SREM', runningKey, member]);
      };
    },
    running: async () => asStrings(await link.command(runningKey, ['SMEMBERS', runningKey])),
    async gaugeMax() {
      const value = await link.command(maxKey, ['GET', maxKey]);
      return value === null ? 0 : asInteger(value, 'gauge max');
    },
    async resetGaugeMax() {
      await link.command(maxKey, ['DEL', maxKey]);
    },
    async heartbeat() {
      const alive = `${heartbeatPrefix}${nodeId}`;
      await link.command(alive, ['SET', alive, '1', 'PX', String(HEARTBEAT_TTL_MS)]);
    },
  };
}
