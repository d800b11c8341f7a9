/**
 * task-finish: the runner's ending, written only if the task is live and not
 * ended yet: the first terminal write wins across every node, and a result
 * is stored once. A result or error past the retained bytes is stored as a
 * `failed` task with the bound's error instead (the finish still ends it).
 *
 * ARGV: taskId, status, result JSON | '', error JSON | '', statusMessage | '',
 * its bytes, maxRetainedBytes, the bound's error JSON, then the tail (task-lua.ts).
 * Reply: 1 (this write ended it) | 0 (already ended, or gone).
 */
import { LuaScript } from '../lua-script.js';
import { TASK_LUA_PRELUDE } from './task-lua.js';

const BODY = `
local id, status, result, err, message = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local added, max_bytes, full_error = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local now = now_ms()
local task = load(id, now)
if not task or TERMINAL[task.status] then return 0 end
if retained() + added > max_bytes then
  finish(id, now, { s = 'failed', x = full_error })
else
  finish(id, now, { s = status, r = result, x = err, sm = message })
  charge(id, added)
end
touch()
return 1
`;

export const TASK_FINISH = new LuaScript('rxmcp-task-finish', TASK_LUA_PRELUDE + BODY);
