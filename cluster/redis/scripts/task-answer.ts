/**
 * task-answer: `tasks/update`'s responses for outstanding keys taken,
 * atomically, so of racing answers from any nodes each key is taken by
 * exactly one. What is taken moves to the runner's mailbox (its follow
 * drains it) and the runner's doorbell rings; with no question left the
 * task is `working` again. Other keys are ignored, as the spec asks.
 *
 * ARGV: taskId, key1, json1, key2, json2, ..., then the tail (task-lua.ts).
 * Reply: {'ok', acceptedKey...} | {'missing'}.
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id = ARGV[1]
local last = #ARGV - 2
local now = now_ms()
local task = load(id, now)
if not task then return { 'missing' } end
local reply = { 'ok' }
if TERMINAL[task.status] then return reply end
local rec, inq, _, mb = task_keys(id)
for i = 2, last, 2 do
  if redis.call('HDEL', inq, ARGV[i]) == 1 then
    redis.call('HSET', mb, ARGV[i], ARGV[i + 1])
    reply[#reply + 1] = ARGV[i]
  end
end
if #reply == 1 then return reply end
redis.call('PEXPIRE', mb, task.expires - now)
if redis.call('HLEN', inq) == 0 then redis.call('HSET', rec, 's', 'working', 'u', now) else redis.call('HSET', rec, 'u', now) end
ring(id, task.rc)
return reply
`;

export const TASK_ANSWER = new LuaScript('rxmcp-task-answer', TASK_LUA_PRELUDE + BODY);
