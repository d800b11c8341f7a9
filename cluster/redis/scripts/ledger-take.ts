/**
 * ledger-take: removes a ticket and says it was there, atomically, so of any
 * number of takes of one ticket from any nodes exactly one gets `taken`.
 * The ticket asked for is looked at before the purge, so one past its expiry
 * answers `expired` (as the in-memory ledger does until its timer runs) and
 * leaves its lapse; one purged earlier answers `lapsed` while its lapse lasts
 * (the expiry was reported by the script that purged it), then `unknown`, as
 * a spent one does at once.
 *
 * ARGV: ticketId, then the tail (ledger-lua.ts).
 * Reply: {'taken', hid, names, issuedAt, expiresAt, now, gone} |
 * {'expired', hid, gone} | {'lapsed', gone} | {'evicted', code, gone} | {'unknown', gone}.
 */
import { LuaScript } from '../lua-script.js';
import { LEDGER_LUA_PRELUDE } from './ledger-lua.js';

const BODY = `
local id = ARGV[1]
local now = now_ms()
local rec = record(id)
local names = redis.call('HGET', NM, id)
local answer
if rec then
  remove(id, rec)
  if now >= rec.expires then
    lapse(id, rec.expires)
    answer = { 'expired', rec.hid }
  else
    answer = { 'taken', rec.hid, names or '', rec.issued, rec.expires, now }
  end
else
  answer = miss(id, now)
end
answer[#answer + 1] = purge(now)
return answer
`;

export const LEDGER_TAKE = new LuaScript('rxmcp-ledger-take', LEDGER_LUA_PRELUDE + BODY);
