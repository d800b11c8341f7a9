/**
 * task-ask: the runner's questions added to the outstanding ones, atomically
 * with the checks: the task is live, no key was ever asked in it before, and
 * the questions fit in the retained bytes (else the task is failed, as the
 * in-memory store does). No question changes nothing.
 *
 * ARGV: taskId, maxRetainedBytes, the questions' bytes, the bound's error JSON,
 * key1, json1, key2, json2, ..., then the tail (task-lua.ts).
 * Reply: 'ok' | 'missing' | 'ended' | 'reused' | 'full'.
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id, max_bytes, added, full_error = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local last = #ARGV - 2
local now = now_ms()
local task = load(id, now)
if not task then return 'missing' end
if TERMINAL[task.status] then return 'ended' end
local rec, inq, asked = task_keys(id)
for i = 5, last, 2 do
  if redis.call('SISMEMBER', asked, ARGV[i]) == 1 then return 'reused' end
end
if last < 5 then return 'ok' end
if retained() + added > max_bytes then
  finish(id, now, { s = 'failed', x = full_error })
  return 'full'
end
for i = 5, last, 2 do
  redis.call('HSET', inq, ARGV[i], ARGV[i + 1])
  redis.call('SADD', asked, ARGV[i])
end
local left = task.expires - now
redis.call('PEXPIRE', inq, left)
redis.call('PEXPIRE', asked, left)
redis.call('HSET', rec, 's', 'input_required', 'u', now)
charge(id, added)
touch()
return 'ok'
`;

export const TASK_ASK = new LuaScript('rxmcp-task-ask', TASK_LUA_PRELUDE + BODY);
