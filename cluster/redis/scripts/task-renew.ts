/**
 * task-renew: the runner's heartbeat and mailbox, for the tasks one node
 * follows. For each live task not ended: its lease extended, the runner's
 * channel recorded (where answers and cancels ring), and the answers
 * waiting in its mailbox taken (each answer reaches the runner once). For
 * the others, what happened: gone (expired or unknown), cancelled, lost
 * (failed because the lease had lapsed) or ended (completed or failed by
 * the runner itself).
 *
 * ARGV: the runner's channel, leaseMs, taskId..., then the tail (task-lua.ts).
 * Reply: one entry per taskId, in order: {'live', msLeft, answerFields} |
 * {'gone'} | {'cancelled'} | {'lost'} | {'ended'}.
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local channel, lease = ARGV[1], tonumber(ARGV[2])
local now = now_ms()
local reply = {}
for i = 3, #ARGV - 2 do
  local id = ARGV[i]
  local task = load(id, now)
  local rec, _, _, mb = task_keys(id)
  if not task then
    reply[#reply + 1] = { 'gone' }
  elseif task.status == 'cancelled' then
    reply[#reply + 1] = { 'cancelled' }
  elseif TERMINAL[task.status] then
    reply[#reply + 1] = { redis.call('HGET', rec, 'lost') and 'lost' or 'ended' }
  else
    redis.call('HSET', rec, 'l', now + lease, 'rc', channel)
    local answers = redis.call('HGETALL', mb)
    redis.call('DEL', mb)
    reply[#reply + 1] = { 'live', task.expires - now, answers }
  end
end
return reply
`;

export const TASK_RENEW = new LuaScript('rxmcp-task-renew', TASK_LUA_PRELUDE + BODY);
