/**
 * ledger-drop: frees every ticket one holder holds (its connection is gone,
 * nobody can redeem them). No tombstones: nobody will ask.
 *
 * ARGV: hid, then the tail (ledger-lua.ts).
 * Reply: {'dropped', count, gone}.
 */
import { LuaScript } from '../lua-script.js';
import { LEDGER_LUA_PRELUDE } from './ledger-lua.js';

const BODY = `
local hid = ARGV[1]
local now = now_ms()
local gone = purge(now)
local dropped = 0
if redis.call('HEXISTS', HC, hid) == 1 then
  for _, id in ipairs(redis.call('ZRANGE', ORD, 0, -1)) do
    local rec = record(id)
    if rec and rec.hid == hid then
      remove(id, rec)
      dropped = dropped + 1
    end
  end
end
return { 'dropped', dropped, gone }
`;

export const LEDGER_DROP = new LuaScript('rxmcp-ledger-drop', LEDGER_LUA_PRELUDE + BODY);
