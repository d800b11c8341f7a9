/**
 * The Lua every approval-ledger script starts with: its keys, the ARGV tail
 * every script ends with, Redis's clock, and the removal and expiry purge
 * each script does first. One copy, pasted in front of each script's body,
 * so the scripts cannot drift apart.
 *
 * Keys (KEYS[1..10], all under the deployment's hash tag, ledgerKeys()):
 *   tk   HASH ticketId -> "hid pid issuedAt expiresAt" (hashes of holder and peer, ms of Redis TIME)
 *   nm   HASH ticketId -> the JSON [holder, peer] a take or reissue answers with
 *   ord  ZSET ticketId by admission sequence (the fairness rule's "oldest")
 *   exp  ZSET ticketId by expiresAt (the purge)
 *   hc   HASH hid -> tickets held; pc HASH pid -> tickets of the peer
 *   tomb HASH ticketId -> "expiresAt code" of an evicted ticket (code: c per holder/peer cap, s full server)
 *   tq   ZSET ticketId by burial sequence (the tombstones' bound)
 *   ctr  STRING the sequence
 *   lapsed ZSET ticketId by (expiresAt + graceMs) of an expired ticket: told `lapsed` (expired) until then
 * ARGV tail (the last three of every script, LedgerTail): graceMs, lapsedCap, keepMs.
 * A ticket's expiry was sealed into its requestState on the issuing
 * process's clock, and a process opens that state up to its clockSkewMs past
 * it (streams/approval-ledger.ts), possibly after the purge: so an expired
 * ticket, and an evicted one past its expiry, answers `lapsed` for graceMs
 * more (a late retry is then "timed out", never asked again). Lapsed ids are
 * at most lapsedCap, the soonest to go dropped first.
 * Every write ends in touch() (lapse() touches its own key): each key
 * expires `keepMs` after the last write, so an abandoned deployment leaves
 * nothing behind.
 */

/** The scripts' key names, in KEYS order. */
export const LEDGER_KEY_PARTS = ['tk', 'nm', 'ord', 'exp', 'hc', 'pc', 'tomb', 'tq', 'ctr', 'lapsed'] as const;

/** The ARGV every ledger script ends with, in this order (read by the prelude from the end of ARGV). */
export interface LedgerTail {
  readonly graceMs: number;
  readonly lapsedCap: number;
  readonly keepMs: number;
}

export function tailArgs(tail: LedgerTail): number[] {
  return [tail.graceMs, tail.lapsedCap, tail.keepMs];
}

export const LEDGER_LUA_PRELUDE = `
local TK, NM, ORD, EXP, HC, PC, TOMB, TQ, CTR, LAPSED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10]
local GRACE, LAPSED_CAP, KEEP = tonumber(ARGV[#ARGV - 2]), tonumber(ARGV[#ARGV - 1]), tonumber(ARGV[#ARGV])

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A record: hid, pid, issuedAt, expiresAt; nil when absent or not of our shape.
local function record(id)
  local raw = redis.call('HGET', TK, id)
  if not raw then return nil end
  local hid, pid, issued, expires = string.match(raw, '^(%S+) (%S+) (%d+) (%d+)$')
  if not hid then return nil end
  return { hid = hid, pid = pid, issued = tonumber(issued), expires = tonumber(expires) }
end

local function decr(hash, field)
  if redis.call('HINCRBY', hash, field, -1) <= 0 then redis.call('HDEL', hash, field) end
end

-- Frees a ticket's slot: its record, its places in both orders, its counts.
local function remove(id, rec)
  redis.call('HDEL', TK, id)
  redis.call('HDEL', NM, id)
  redis.call('ZREM', ORD, id)
  redis.call('ZREM', EXP, id)
  if rec then
    decr(HC, rec.hid)
    decr(PC, rec.pid)
  end
end

-- An expired ticket's id, answered 'lapsed' until GRACE past its expiry; at most LAPSED_CAP, the soonest to go dropped first.
local function lapse(id, expires)
  if GRACE <= 0 then return end
  redis.call('ZADD', LAPSED, expires + GRACE, id)
  local over = redis.call('ZCARD', LAPSED) - LAPSED_CAP
  if over > 0 then redis.call('ZREMRANGEBYRANK', LAPSED, 0, over - 1) end
  redis.call('PEXPIRE', LAPSED, KEEP)
end

-- Every ticket past its expiry (now >= expiresAt) goes, leaving its lapse; returns their holders' hashes.
local function purge(now)
  local gone = {}
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', EXP, '-inf', string.format('%d', now))) do
    local rec = record(id)
    remove(id, rec)
    if rec then
      gone[#gone + 1] = rec.hid
      lapse(id, rec.expires)
    end
  end
  redis.call('ZREMRANGEBYSCORE', LAPSED, '-inf', string.format('%d', now))
  return gone
end

-- Why a ticket that is not held is missing: evicted while its tombstone lasts, then lapsed for GRACE;
-- lapsed while an expired one's lapse lasts; else unknown (spent, purged long ago, never issued).
local function miss(id, now)
  local raw = redis.call('HGET', TOMB, id)
  if raw then
    local expires, code = string.match(raw, '^(%d+) (%a)$')
    if expires and now < tonumber(expires) then return { 'evicted', code } end
    if expires and now < tonumber(expires) + GRACE then return { 'lapsed' } end
  end
  local until_ms = redis.call('ZSCORE', LAPSED, id)
  if until_ms and now < tonumber(until_ms) then return { 'lapsed' } end
  return { 'unknown' }
end

-- Whether an id is in use in any of the ledger's indexes (a new id must not be).
local function taken_id(id)
  return redis.call('HEXISTS', TK, id) == 1 or redis.call('HEXISTS', TOMB, id) == 1 or redis.call('ZSCORE', LAPSED, id) ~= false
end

local function touch()
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], KEEP) end
end
`;
