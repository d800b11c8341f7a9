/**
 * The Lua every task-store script starts with: its keys, the ARGV tail every
 * script ends with, Redis's clock, and how a task is loaded, charged and
 * forgotten. One copy, pasted in front of each script's body, so the
 * scripts cannot drift apart.
 *
 * Index keys (KEYS[1..4], all under the deployment's hash tag, TASK_INDEX_PARTS):
 *   exp   ZSET taskId by expiresAt (how many tasks there are, and the purge)
 *   meta  HASH taskId -> "ownerHash bytes": what a task is charged, readable
 *         after its own keys went (the purge gives it back)
 *   oc    HASH ownerHash -> tasks held
 *   bytes STRING the bytes every task retains (TASK_BYTES each, plus its questions and result)
 * A task's own keys, named from the prefix in the tail (`<prefix><taskId>...`):
 *   rec   HASH o owner, m method, n name, s status, sm statusMessage, c createdAt,
 *         u lastUpdatedAt, e expiresAt, t ttlMs, p pollIntervalMs, r result JSON,
 *         x error JSON, l lease end, rc the runner's channel, lost "1" when its lease lapsed
 *   :in   HASH key -> InputRequest JSON, the outstanding questions
 *   :ask  SET every key ever asked (keys are never reused)
 *   :mb   HASH key -> answer JSON, the runner's mailbox until its follow drains it
 * Each has a PX of the task's time left; the index keys a PX of keepMs
 * renewed by every write, so an abandoned deployment leaves nothing behind.
 * Times are ms of Redis TIME: one clock for every node.
 * ARGV tail (the last two of every script): the task key prefix, keepMs.
 */

/** The scripts' index key names, in KEYS order. */
export const TASK_INDEX_PARTS = ['exp', 'meta', 'oc', 'bytes'] as const;

export const TASK_LUA_PRELUDE = `
local EXP, META, OC, BYTES = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local PREFIX, KEEP = ARGV[#ARGV - 1], tonumber(ARGV[#ARGV])
local TERMINAL = { completed = true, failed = true, cancelled = true }

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function task_keys(id)
  local rec = PREFIX .. id
  return rec, rec .. ':in', rec .. ':ask', rec .. ':mb'
end

-- Gives back what a task held and deletes its keys (some may have gone by their PX already).
local function forget(id)
  local meta = redis.call('HGET', META, id)
  if meta then
    local hid, bytes = string.match(meta, '^(%S+) (%d+)$')
    if hid then
      if redis.call('HINCRBY', OC, hid, -1) <= 0 then redis.call('HDEL', OC, hid) end
      if redis.call('DECRBY', BYTES, bytes) < 0 then redis.call('SET', BYTES, 0) end
    end
  end
  redis.call('HDEL', META, id)
  redis.call('ZREM', EXP, id)
  redis.call('DEL', task_keys(id))
end

-- Every task at or past its expiry goes (at most 256 a call: a backlog drains over the next calls).
local function purge(now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', EXP, '-inf', string.format('%d', now), 'LIMIT', 0, 256)) do forget(id) end
end

-- A live task's status, expiry and runner channel; nil when unknown or expired (then forgotten).
local function load(id, now)
  local rec = PREFIX .. id
  local f = redis.call('HMGET', rec, 's', 'e', 'rc')
  if not f[1] or not f[2] then return nil end
  local expires = tonumber(f[2])
  if now >= expires then
    forget(id)
    return nil
  end
  return { status = f[1], expires = expires, rc = f[3] }
end

-- Adds n bytes to what a task retains, in its meta and the total.
local function charge(id, n)
  if n <= 0 then return end
  local meta = redis.call('HGET', META, id)
  local hid, bytes = string.match(meta or '', '^(%S+) (%d+)$')
  if not hid then return end
  redis.call('HSET', META, id, hid .. ' ' .. string.format('%d', tonumber(bytes) + n))
  redis.call('INCRBY', BYTES, n)
end

local function retained()
  return tonumber(redis.call('GET', BYTES) or '0')
end

-- Ends a task: its status and fields, its questions and mailbox gone.
local function finish(id, now, fields)
  local rec, inq, _, mb = task_keys(id)
  redis.call('HSET', rec, 's', fields.s, 'u', now)
  for _, name in ipairs({ 'sm', 'r', 'x' }) do
    if fields[name] and fields[name] ~= '' then redis.call('HSET', rec, name, fields[name]) else redis.call('HDEL', rec, name) end
  end
  redis.call('DEL', inq, mb)
end

-- Rings the runner's doorbell: "look at task <id>" on the channel its follow gave.
local function ring(id, rc)
  if rc and rc ~= '' then redis.call('SPUBLISH', rc, id) end
end

local function touch()
  for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], KEEP) end
end
`;
