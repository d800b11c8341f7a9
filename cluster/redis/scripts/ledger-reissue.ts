/**
 * ledger-reissue: swaps an outstanding ticket for a new id in the same slot
 * (same holder, peer and admission order, so the same standing in the
 * fairness rule) with a fresh expiry. The old id is spent. Misses as in
 * ledger-take.
 *
 * ARGV: ticketId, newTicketId, ttlMs, then the tail (ledger-lua.ts).
 * Reply: {'reissued', hid, names, issuedAt, expiresAt, now, gone} |
 * {'expired', hid, gone} | {'lapsed', gone} | {'evicted', code, gone} | {'unknown', gone} | {'collision', gone}.
 */
import { LuaScript } from '../lua-script.js';
import { LEDGER_LUA_PRELUDE } from './ledger-lua.js';

const BODY = `
local id, fresh = ARGV[1], ARGV[2]
local ttl = tonumber(ARGV[3])
local now = now_ms()
local rec = record(id)
local answer
if not rec then
  answer = miss(id, now)
elseif now >= rec.expires then
  remove(id, rec)
  lapse(id, rec.expires)
  answer = { 'expired', rec.hid }
elseif taken_id(fresh) then
  answer = { 'collision' }
else
  local names = redis.call('HGET', NM, id) or ''
  local sequence = redis.call('ZSCORE', ORD, id)
  local expires = now + ttl
  redis.call('HDEL', TK, id)
  redis.call('HDEL', NM, id)
  redis.call('ZREM', ORD, id)
  redis.call('ZREM', EXP, id)
  redis.call('HSET', TK, fresh, string.format('%s %s %d %d', rec.hid, rec.pid, now, expires))
  redis.call('HSET', NM, fresh, names)
  redis.call('ZADD', ORD, sequence or redis.call('INCR', CTR), fresh)
  redis.call('ZADD', EXP, expires, fresh)
  touch()
  answer = { 'reissued', rec.hid, names, now, expires, now }
end
answer[#answer + 1] = purge(now)
return answer
`;

export const LEDGER_REISSUE = new LuaScript('rxmcp-ledger-reissue', LEDGER_LUA_PRELUDE + BODY);
