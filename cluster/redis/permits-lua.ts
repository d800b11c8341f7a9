/**
 * The leased permits' scripts. Two sorted sets per deployment: the global
 * one (every permit held anywhere) and one per owner (its permits), each
 * member `<nodeId>:<permitId>` scored with the time its lease ends. Time is
 * Redis's own (`TIME`), one clock for every node. A member whose score has
 * passed is gone: the next acquire purges it, and no renewal brings it back,
 * so a node that stops renewing loses its permits one lease after its last
 * renewal, without anyone cleaning up. Every key carries a PX no shorter
 * than the longest lease in it, so an idle deployment leaves nothing.
 */
import { LuaScript } from './lua-script.js';

/** Redis time in ms, and a PEXPIRE that only ever lengthens (PTTL is -1 or -2 for no TTL or no key). */
const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * KEYS: global, owner. ARGV: member, leaseMs, maxInFlight, maxInFlightPerPrincipal.
 * Returns 'ok', 'cluster' or 'principal' (the cap that refused).
 */
export const ACQUIRE_PERMIT = new LuaScript(
  'rxmcp-permit-acquire',
  `${PRELUDE}
local lease = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 'cluster' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 'principal' end
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('ZADD', KEYS[2], now + lease, ARGV[1])
keep(KEYS[1], lease)
keep(KEYS[2], lease)
return 'ok'
`,
);

/** KEYS: global, owner. ARGV: member. Returns how many of the two sets held it. */
export const RELEASE_PERMIT = new LuaScript(
  'rxmcp-permit-release',
  `
return redis.call('ZREM', KEYS[1], ARGV[1]) + redis.call('ZREM', KEYS[2], ARGV[1])
`,
);

/**
 * KEYS: global, then the owner of each member. ARGV: leaseMs, then the
 * members (ARGV[i] belongs to KEYS[i]). Extends each live member's lease to
 * now + leaseMs; one whose lease already ended is removed, not revived.
 * Returns how many were lost that way.
 */
export const RENEW_PERMITS = new LuaScript(
  'rxmcp-permit-renew',
  `${PRELUDE}
local lease = tonumber(ARGV[1])
local lost = 0
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) > now then
    redis.call('ZADD', KEYS[1], 'XX', now + lease, ARGV[i])
    redis.call('ZADD', KEYS[i], 'XX', now + lease, ARGV[i])
    keep(KEYS[i], lease)
  else
    redis.call('ZREM', KEYS[1], ARGV[i])
    redis.call('ZREM', KEYS[i], ARGV[i])
    lost = lost + 1
  end
end
if lost < #ARGV - 1 then keep(KEYS[1], lease) end
return lost
`,
);
