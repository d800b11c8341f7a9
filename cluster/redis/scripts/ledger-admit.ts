/**
 * ledger-admit: one check-and-insert of an approval ticket, with the fair
 * eviction of lib/approval-counts.ts (the rule is spelled out there; this
 * is the same rule over Redis state, so a ticket admitted on any node counts
 * against one set of caps):
 * - a holder at maxPerHolder is refused (c);
 * - a peer at maxPerPeer makes room only among its own holders (c);
 * - a full server: a peer holding fewer than the fullest peer evicts that
 *   peer's victim; otherwise its own (s);
 * - the victim is the oldest ticket of the fullest holder of the losing peer
 *   (ties to the oldest), and inside the newcomer's own peer only when that
 *   holder holds more than the newcomer's holder does.
 * The victim leaves a tombstone until its own expiry and graceMs after it
 * (then it answers `lapsed`, ledger-lua.ts); tombstones are at most
 * maxTotal, oldest burial dropped first.
 *
 * ARGV: ticketId, hid, pid, names (JSON), maxPerHolder, maxPerPeer, maxTotal, ttlMs, then the tail (ledger-lua.ts).
 * Reply: {'refused', code, gone} | {'admitted', issuedAt, expiresAt, now,
 * outstanding, victimHid, victimCode, gone} | {'collision', gone}; `gone`
 * the hashes of the holders whose tickets expired in the purge.
 */
import { LuaScript } from '../lua-script.js';
import { LEDGER_LUA_PRELUDE } from './ledger-lua.js';

const BODY = `
local id, hid, pid, names = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local maxHolder, maxPeer, maxTotal = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local ttl = tonumber(ARGV[8])
local now = now_ms()
local gone = purge(now)

if taken_id(id) then return { 'collision', gone } end

local function count(hash, field) return tonumber(redis.call('HGET', hash, field)) or 0 end

-- Live tickets in admission order, each with its holder and peer hashes.
local ordered = nil
local function tickets()
  if ordered == nil then
    ordered = {}
    for _, tid in ipairs(redis.call('ZRANGE', ORD, 0, -1)) do
      local rec = record(tid)
      if rec then ordered[#ordered + 1] = { id = tid, rec = rec } end
    end
  end
  return ordered
end

-- The oldest ticket of the holder of peer p holding the most (first met wins ties).
local function oldest_of_fullest_holder(p)
  local best, most = nil, 0
  for _, t in ipairs(tickets()) do
    if t.rec.pid == p then
      local size = count(HC, t.rec.hid)
      if size > most then best, most = t, size end
    end
  end
  return best
end

local function victim_in_own_peer(held)
  local victim = oldest_of_fullest_holder(pid)
  if victim and count(HC, victim.rec.hid) > held then return victim end
  return nil
end

-- The peer holding the most; ties to the one whose oldest ticket is oldest (met first).
local function fullest_peer()
  local best, most, seen = nil, 0, {}
  for _, t in ipairs(tickets()) do
    local p = t.rec.pid
    if not seen[p] then
      seen[p] = true
      local size = count(PC, p)
      if size > most then best, most = p, size end
    end
  end
  return best, most
end

local held = count(HC, hid)
if held >= maxHolder then return { 'refused', 'c', gone } end
local peerHeld = count(PC, pid)
local victim, code = nil, nil
if peerHeld >= maxPeer then
  victim, code = victim_in_own_peer(held), 'c'
  if not victim then return { 'refused', 'c', gone } end
elseif redis.call('ZCARD', ORD) >= maxTotal then
  local fullest, most = fullest_peer()
  if fullest and most > peerHeld then victim = oldest_of_fullest_holder(fullest) else victim = victim_in_own_peer(held) end
  code = 's'
  if not victim then return { 'refused', 's', gone } end
end

local victimHid = ''
if victim then
  victimHid = victim.rec.hid
  remove(victim.id, victim.rec)
  -- Bury it, keeping at most maxTotal tombstones: drop from the oldest burial while past its grace or at the bound.
  for _ = 1, maxTotal + 1 do
    local first = redis.call('ZRANGE', TQ, 0, 0)[1]
    if not first then break end
    local raw = redis.call('HGET', TOMB, first)
    local expires = raw and tonumber(string.match(raw, '^(%d+) '))
    if expires and expires + GRACE > now and redis.call('HLEN', TOMB) < maxTotal then break end
    redis.call('HDEL', TOMB, first)
    redis.call('ZREM', TQ, first)
  end
  redis.call('HSET', TOMB, victim.id, string.format('%d %s', victim.rec.expires, code))
  redis.call('ZADD', TQ, redis.call('INCR', CTR), victim.id)
end

local expires = now + ttl
redis.call('HSET', TK, id, string.format('%s %s %d %d', hid, pid, now, expires))
redis.call('HSET', NM, id, names)
redis.call('ZADD', ORD, redis.call('INCR', CTR), id)
redis.call('ZADD', EXP, expires, id)
local outstanding = redis.call('HINCRBY', HC, hid, 1)
redis.call('HINCRBY', PC, pid, 1)
touch()
return { 'admitted', now, expires, now, outstanding, victimHid, code or '', gone }
`;

export const LEDGER_ADMIT = new LuaScript('rxmcp-ledger-admit', LEDGER_LUA_PRELUDE + BODY);
