/**
 * The Lua every approval-ledger script starts with: its keys, Redis's clock,
 * and the removal and expiry purge each script does first. One copy, pasted
 * in front of each script's body, so the scripts cannot drift apart.
 *
 * Keys (KEYS[1..9], all under the deployment's hash tag, ledgerKeys()):
 *   tk   HASH ticketId -> "hid pid issuedAt expiresAt" (hashes of holder and peer, ms of Redis TIME)
 *   nm   HASH ticketId -> the JSON [holder, peer] a take or reissue answers with
 *   ord  ZSET ticketId by admission sequence (the fairness rule's "oldest")
 *   exp  ZSET ticketId by expiresAt (the purge)
 *   hc   HASH hid -> tickets held; pc HASH pid -> tickets of the peer
 *   tomb HASH ticketId -> "expiresAt code" of an evicted ticket (code: c per holder/peer cap, s full server)
 *   tq   ZSET ticketId by burial sequence (the tombstones' bound)
 *   ctr  STRING the sequence
 * Every write ends in touch(): each key expires `keepMs` after the last
 * write, so an abandoned deployment leaves nothing behind.
 */

/** The scripts' key names, in KEYS order. */
export const LEDGER_KEY_PARTS = ['tk', 'nm', 'ord', 'exp', 'hc', 'pc', 'tomb', 'tq', 'ctr'] as const;

export const LEDGER_LUA_PRELUDE = `
local TK, NM, ORD, EXP, HC, PC, TOMB, TQ, CTR = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]

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

-- Every ticket past its expiry (now >= expiresAt) goes; returns their holders' hashes.
local function purge(now)
  local gone = {}
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', EXP, '-inf', string.format('%d', now))) do
    local rec = record(id)
    remove(id, rec)
    if rec then gone[#gone + 1] = rec.hid end
  end
  return gone
end

-- Why a ticket that is not held is missing: its tombstone while it lasts, else unknown.
local function miss(id, now)
  local raw = redis.call('HGET', TOMB, id)
  if raw then
    local expires, code = string.match(raw, '^(%d+) (%a)$')
    if expires and now < tonumber(expires) then return { 'evicted', code } end
  end
  return { 'unknown' }
end

local function touch(keep)
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], keep) end
end
`;
